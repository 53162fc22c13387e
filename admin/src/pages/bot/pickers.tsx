/**
 * Choosing a provider connection, one of its models and one of its voices: the lists come from the providers
 * API (GET /providers, /providers/{id}/models, /providers/{id}/voices), so a person picks instead of typing ids.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { errorAt, messageOf } from '../../ui.js';
import { fieldId, useEditor } from './editor.js';
import { getAt } from './paths.js';
import { VOICE_LETTERS } from '../providers/model.js';

interface Model { id: string; label: string; capabilities: Record<string, boolean> }
interface Voice { id: string; name: string; language?: string; previewUrl: string }

const cache = new Map<string, Promise<any>>();
/** Lists already read, so a group drawn again shows them at once (a field that flickers loses its focus). */
const lists = new Map<string, any>();
function cached<T>(path: string): Promise<T> {
  let p = cache.get(path);
  if (!p) { p = api<T>('GET', path).then((v) => { lists.set(path, v); return v; }); cache.set(path, p); p.catch(() => cache.delete(path)); }
  return p as Promise<T>;
}
const modelsPath = (conn: string | null) => (conn ? `/providers/${encodeURIComponent(conn)}/models` : '');
const voicesPath = (conn: string | null) => (conn ? `/providers/${encodeURIComponent(conn)}/voices` : '');

function Wrap(props: { path: string; label: string; hint: string; children: preact.ComponentChildren; note?: string | null }) {
  const ed = useEditor();
  const id = fieldId(props.path);
  const error = errorAt(ed.errors, props.path);
  const changed = JSON.stringify(getAt(ed.draft, props.path)) !== JSON.stringify(getAt(ed.saved, props.path));
  return (
    <div class={`setting select${error ? ' has-error' : ''}${changed ? ' changed' : ''}`} data-path={props.path}>
      <div class="setting-label"><label for={id}>{props.label}</label>{changed && <span class="edited">edited</span>}</div>
      {props.children}
      <small class="hint" id={`${id}-hint`}>{props.hint}</small>
      {props.note && <small class="hint">{props.note}</small>}
      {error && <small class="field-error" id={`${id}-error`}>{error}</small>}
    </div>
  );
}

const ariaFor = (path: string, error: string | undefined) => ({
  id: fieldId(path), name: path, 'aria-invalid': error ? true : undefined,
  'aria-describedby': [`${fieldId(path)}-hint`, error ? `${fieldId(path)}-error` : ''].filter(Boolean).join(' '),
});

/** A connection of one of these kinds (letters A to D, bot-config.md Conventions 6), or none. */
export function ConnectionPicker(props: { path: string; label: string; letters: string[]; none: string; hint: string; onPicked?: (id: string | null) => void }) {
  const ed = useEditor();
  const value = getAt(ed.draft, props.path) as string | null;
  const fits = (ed.connections ?? []).filter((c) => props.letters.includes(c.letter));
  const unknown = value && !fits.some((c) => c.id === value);
  const note = ed.connections && fits.length === 0 ? 'No connection of this kind yet: connect a provider (Providers), then choose it here.' : null;
  return (
    <Wrap path={props.path} label={props.label} hint={props.hint} note={note}>
      <select {...ariaFor(props.path, errorAt(ed.errors, props.path))} disabled={!ed.canEdit} value={value ?? ''}
        onChange={(e) => { const v = e.currentTarget.value || null; ed.set(props.path, v); props.onPicked?.(v); }}>
        <option value="">{props.none}</option>
        {fits.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}
        {unknown && <option value={value!}>{value} (not connected)</option>}
      </select>
    </Wrap>
  );
}

/**
 * A model of the connection at `connectionPath` (or of `fallbackConnection` when that is null), filtered by a
 * capability; the provider's recommended model is marked. Without a list it takes a typed id.
 */
export function ModelPicker(props: { path: string; connectionPath: string; fallbackConnection?: string | null; capability: string; label: string; hint: string; emptyText?: string }) {
  const ed = useEditor();
  const conn = (getAt(ed.draft, props.connectionPath) as string | null) ?? props.fallbackConnection ?? null;
  const value = String(getAt(ed.draft, props.path) ?? '');
  const [models, setModels] = useState<{ items: Model[]; recommended: string | null } | null>(() => lists.get(modelsPath(conn)) ?? null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setModels(lists.get(modelsPath(conn)) ?? null); setError(null);
    if (!conn) return;
    let live = true;
    cached<{ items: Model[]; recommended: string | null }>(modelsPath(conn))
      .then((m) => { if (live) setModels(m); }, (e) => { if (live) setError(messageOf(e)); });
    return () => { live = false; };
  }, [conn]);
  const fieldError = errorAt(ed.errors, props.path);
  const list = (models?.items ?? []).filter((m) => m.capabilities[props.capability]);
  const note = !conn ? 'Choose a connection first to see its models.' : error ? `The model list could not be read (${error}); type a model id.` : null;
  if (!models || list.length === 0) {
    return (
      <Wrap path={props.path} label={props.label} hint={props.hint} note={note ?? (models ? 'This connection lists no such model; type its id.' : null)}>
        <input {...ariaFor(props.path, fieldError)} type="text" maxLength={120} disabled={!ed.canEdit} value={value} placeholder={props.emptyText}
          onInput={(e) => ed.set(props.path, e.currentTarget.value)} />
      </Wrap>
    );
  }
  const known = list.some((m) => m.id === value);
  return (
    <Wrap path={props.path} label={props.label} hint={props.hint}>
      <select {...ariaFor(props.path, fieldError)} disabled={!ed.canEdit} value={value} onChange={(e) => ed.set(props.path, e.currentTarget.value)}>
        <option value="">{props.emptyText ?? 'Choose a model'}</option>
        {!known && value && <option value={value}>{value} (not offered by this connection)</option>}
        {list.map((m) => <option key={m.id} value={m.id}>{m.label || m.id}{m.id === models.recommended ? ' (recommended)' : ''}</option>)}
      </select>
    </Wrap>
  );
}

/** A voice of the connection, with a button that plays its sample. */
export function VoicePicker(props: { path: string; connectionPath: string; fallbackConnection?: string | null; label: string; hint: string }) {
  const ed = useEditor();
  const picked = (getAt(ed.draft, props.connectionPath) as string | null) ?? props.fallbackConnection ?? null;
  // Only a provider with voices is asked for them (a text-only connection, kind A, would refuse the request).
  const connection = ed.connections?.find((c) => c.id === picked);
  const speechless = connection !== undefined && !VOICE_LETTERS.includes(connection.letter);
  const conn = speechless ? null : picked;
  const value = String(getAt(ed.draft, props.path) ?? '');
  const [voices, setVoices] = useState<Voice[] | null>(() => lists.get(voicesPath(conn))?.items ?? null);
  useEffect(() => {
    setVoices(lists.get(voicesPath(conn))?.items ?? null);
    if (!conn) return;
    let live = true;
    cached<{ items: Voice[] }>(voicesPath(conn)).then((v) => { if (live) setVoices(v.items); }, () => { if (live) setVoices([]); });
    return () => { live = false; };
  }, [conn]);
  const fieldError = errorAt(ed.errors, props.path);
  const chosen = voices?.find((v) => v.id === value);
  if (!voices || voices.length === 0) {
    return (
      <Wrap path={props.path} label={props.label} hint={props.hint} note={speechless ? `${connection!.name} has no voices: connect a voice provider (OpenAI, Google Gemini or a speech provider) under Providers, then choose it.` : conn ? null : 'Choose a connection first to hear its voices.'}>
        <input {...ariaFor(props.path, fieldError)} type="text" maxLength={120} disabled={!ed.canEdit} value={value} onInput={(e) => ed.set(props.path, e.currentTarget.value)} />
      </Wrap>
    );
  }
  return (
    <Wrap path={props.path} label={props.label} hint={props.hint}>
      <span class="with-action">
        <select {...ariaFor(props.path, fieldError)} disabled={!ed.canEdit} value={value} onChange={(e) => ed.set(props.path, e.currentTarget.value)}>
          <option value="">Provider default</option>
          {voices.map((v) => <option key={v.id} value={v.id}>{v.name}{v.language ? ` (${v.language})` : ''}</option>)}
        </select>
        {chosen && <button type="button" class="secondary small" onClick={() => void new Audio(chosen.previewUrl).play().catch(() => {})}>Play sample</button>}
      </span>
    </Wrap>
  );
}
