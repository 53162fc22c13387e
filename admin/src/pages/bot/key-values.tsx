/**
 * A small editor for a map in the config (texts.strings, face.config): one row per key with its value, add and
 * remove. Rows live here while typed (a row without a key yet is not in the map); the map is set on each edit.
 * `typed` values are read as JSON when they parse as a number, true/false or an object (face settings), else text.
 */
import { useEffect, useState } from 'preact/hooks';
import { errorAt } from '../../ui.js';
import { fieldId, useEditor } from './editor.js';
import { getAt } from './paths.js';

type Row = { key: string; value: string };
const shownValue = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));
const readValue = (s: string, typed: boolean): unknown => {
  if (!typed) return s;
  const t = s.trim();
  if (/^(-?\d+(\.\d+)?|true|false|\{.*\}|\[.*\])$/s.test(t)) { try { return JSON.parse(t); } catch { /* text, then */ } }
  return s;
};

/** `known`: keys offered while typing (a datalist), each with its default shown as the value's placeholder. */
export function KeyValues(props: { path: string; legend: string; hint: string; keyHint?: string; addText: string; typed?: boolean; skip?: string[]; known?: Record<string, string> }) {
  const ed = useEditor();
  const { path, typed = false, skip = [] } = props;
  const map = (getAt(ed.draft, path) ?? {}) as Record<string, unknown>;
  const fromMap = (): Row[] => Object.entries(map).filter(([k]) => !skip.includes(k)).map(([key, v]) => ({ key, value: shownValue(v) }));
  const [rows, setRows] = useState<Row[]>(fromMap);
  const toMap = (list: Row[]) => {
    const kept = Object.fromEntries(Object.entries(map).filter(([k]) => skip.includes(k)));
    for (const r of list) if (r.key.trim()) kept[r.key.trim()] = readValue(r.value, typed);
    return kept;
  };
  // Discard, a reload or a restore changes the map under the rows: show it again (typing keeps the two in step).
  const mapJson = JSON.stringify(map);
  useEffect(() => { if (JSON.stringify(toMap(rows)) !== mapJson) setRows(fromMap()); }, [mapJson]);
  const put = (list: Row[]) => { setRows(list); ed.set(path, toMap(list)); };
  const error = errorAt(ed.errors, path);
  const listId = `${fieldId(path)}-keys`;
  const dupes = new Set(rows.map((r) => r.key.trim()).filter((k, i, all) => k && all.indexOf(k) !== i));
  return (
    <fieldset class={`rows-editor wide${error ? ' has-error' : ''}`} data-path={path} id={fieldId(path)} tabIndex={-1} aria-describedby={`${fieldId(path)}-hint`}>
      <legend>{props.legend}</legend>
      <small class="hint muted" id={`${fieldId(path)}-hint`}>{props.hint}</small>
      {rows.map((r, i) => (
        <div class="row-edit kv" key={i} data-row={i}>
          <label>Key<input type="text" name={`${path}.key`} maxLength={64} disabled={!ed.canEdit} value={r.key} placeholder={props.keyHint} list={props.known ? listId : undefined}
            aria-invalid={dupes.has(r.key.trim()) ? true : undefined} onInput={(e) => put(rows.map((x, j) => (j === i ? { ...x, key: e.currentTarget.value } : x)))} /></label>
          <label class="kv-value">Value<input type="text" name={`${path}.value`} disabled={!ed.canEdit} value={r.value} placeholder={props.known?.[r.key.trim()]}
            onInput={(e) => put(rows.map((x, j) => (j === i ? { ...x, value: e.currentTarget.value } : x)))} /></label>
          {ed.canEdit && <button type="button" class="secondary small danger" aria-label={`Remove ${r.key || `row ${i + 1}`}`} onClick={() => put(rows.filter((_, j) => j !== i))}>Remove</button>}
          {dupes.has(r.key.trim()) && <small class="field-error">This key is used twice; only the last row counts. Give each row its own key.</small>}
        </div>
      ))}
      {props.known && <datalist id={listId}>{Object.entries(props.known).map(([k, v]) => <option key={k} value={k}>{v}</option>)}</datalist>}
      {ed.canEdit && <button type="button" class="secondary small" onClick={() => setRows([...rows, { key: '', value: '' }])}>{props.addText}</button>}
      {!rows.length && !ed.canEdit && <p class="muted">None set.</p>}
      {error && <small class="field-error">{error}</small>}
    </fieldset>
  );
}
