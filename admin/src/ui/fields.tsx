/**
 * Form fields with their error shown at the field. A 422 from the API carries details [{ path, message }]
 * (and the message starts "path: ..."); `fieldErrors` turns either into { path: message }, and a field shows
 * the error for its `path` (default: its name) with aria-invalid and aria-describedby.
 */
import type { ComponentChildren } from 'preact';
import { ApiFailure } from '../api.js';

export type FieldErrors = Record<string, string>;

/** { 'brain.model': 'required ...' } from an API failure; empty for other errors. */
export function fieldErrors(err: unknown): FieldErrors {
  const out: FieldErrors = {};
  if (!(err instanceof ApiFailure)) return out;
  if (Array.isArray(err.details)) {
    for (const d of err.details as Array<{ path?: unknown; message?: unknown }>) {
      if (typeof d?.path === 'string' && typeof d.message === 'string') out[d.path] ??= d.message;
    }
  }
  if (!Object.keys(out).length) {
    // Problems are joined with '; ', but a message may hold '; ' itself: split only where a path follows.
    for (const part of err.message.split(/; (?=[A-Za-z_][\w.[\]]*: )/)) {
      const m = /^([A-Za-z_][\w.[\]]*): (.+)$/.exec(part);
      if (m) out[m[1]!] ??= m[2]!;
    }
  }
  return out;
}

/** The error for a field at `path`, also matching deeper paths (brain.model.id counts for brain.model). */
export function errorAt(errors: FieldErrors | undefined, path: string): string | undefined {
  if (!errors) return undefined;
  if (errors[path]) return errors[path];
  const deeper = Object.keys(errors).find((k) => k.startsWith(`${path}.`) || k.startsWith(`${path}[`));
  return deeper ? errors[deeper] : undefined;
}

let uid = 0;
const idFor = (name: string) => `f-${name.replace(/[^\w-]/g, '-')}-${++uid}`;

interface Common { label: string; name: string; hint?: ComponentChildren; error?: string; path?: string; errors?: FieldErrors; required?: boolean; disabled?: boolean }

function Wrap(props: Common & { id: string; children: ComponentChildren }) {
  const error = props.error ?? errorAt(props.errors, props.path ?? props.name);
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={props.id}>{props.label}{props.required && <span class="req" aria-hidden="true"> *</span>}</label>
      {props.children}
      {props.hint && <small class="hint" id={`${props.id}-hint`}>{props.hint}</small>}
      {error && <small class="field-error" id={`${props.id}-error`}>{error}</small>}
    </div>
  );
}

function aria(id: string, c: Common) {
  const error = c.error ?? errorAt(c.errors, c.path ?? c.name);
  const by = [c.hint ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { id, 'aria-invalid': error ? true : undefined, 'aria-describedby': by || undefined };
}

export function TextField(props: Common & { value: string; onInput: (v: string) => void; type?: string; autocomplete?: string; placeholder?: string; minLength?: number; maxLength?: number; autofocus?: boolean; inputMode?: string }) {
  const id = idFor(props.name);
  return (
    <Wrap {...props} id={id}>
      <input {...aria(id, props)} name={props.name} type={props.type ?? 'text'} value={props.value} required={props.required} disabled={props.disabled}
        autocomplete={props.autocomplete} placeholder={props.placeholder} minLength={props.minLength} maxLength={props.maxLength} autofocus={props.autofocus}
        onInput={(e) => props.onInput(e.currentTarget.value)} />
    </Wrap>
  );
}

export function TextArea(props: Common & { value: string; onInput: (v: string) => void; rows?: number; placeholder?: string; maxLength?: number }) {
  const id = idFor(props.name);
  return (
    <Wrap {...props} id={id}>
      <textarea {...aria(id, props)} name={props.name} rows={props.rows ?? 4} value={props.value} required={props.required} disabled={props.disabled}
        placeholder={props.placeholder} maxLength={props.maxLength} onInput={(e) => props.onInput(e.currentTarget.value)} />
    </Wrap>
  );
}

export function SelectField(props: Common & { value: string; options: Array<[value: string, text: string]>; onChange: (v: string) => void }) {
  const id = idFor(props.name);
  return (
    <Wrap {...props} id={id}>
      <select {...aria(id, props)} name={props.name} value={props.value} required={props.required} disabled={props.disabled} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.options.map(([v, t]) => <option key={v} value={v}>{t}</option>)}
      </select>
    </Wrap>
  );
}

/**
 * A failed action's errors under a form, the one way every form shows them: each error whose path a field of the form
 * shows is at that field (fields read `act.fields`); the rest are listed here by path; a message naming no field is
 * shown as it is. `shown`: the paths the form's fields show.
 */
export function FormErrors({ act, shown }: { act: { error: string | null; fields: FieldErrors }; shown: string[] }) {
  if (Object.keys(act.fields).length) return <OtherErrors errors={act.fields} shown={shown} />;
  return act.error ? <p class="error" role="alert">{act.error}</p> : null;
}

/** The errors of a failure that no field on the form shows (so nothing the API said is lost). */
export function OtherErrors({ errors, shown }: { errors: FieldErrors; shown: string[] }) {
  const rest = Object.entries(errors).filter(([p]) => !shown.some((s) => p === s || p.startsWith(`${s}.`)));
  if (!rest.length) return null;
  return <ul class="error" role="alert">{rest.map(([p, m]) => <li key={p}><code>{p}</code>: {m}</li>)}</ul>;
}
