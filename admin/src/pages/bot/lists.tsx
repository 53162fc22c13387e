/** Editors for the two lists of objects in the config: the lead form's fields and the weekly opening hours. */
import { errorAt } from '../../ui.js';
import { fieldId, useEditor } from './editor.js';

interface LeadField { key: string; label: string; type: string; required: boolean; options?: string[] }
interface Period { day: number; open: string; close: string }

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const TYPES = [['text', 'Text'], ['email', 'E-mail'], ['tel', 'Phone'], ['textarea', 'Long text'], ['select', 'Choice']];

/** Errors for one row (behavior.leadCapture.fields.2.key) shown beside that row. */
function rowError(errors: Record<string, string>, path: string, i: number): string | undefined {
  return errorAt(errors, `${path}.${i}`);
}

export function LeadFields() {
  const ed = useEditor();
  const path = 'behavior.leadCapture.fields';
  const rows: LeadField[] = ed.draft.behavior?.leadCapture?.fields ?? [];
  const put = (i: number, change: Partial<LeadField>) => ed.set(path, rows.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const listError = ed.errors[path];
  return (
    <fieldset class="rows-editor wide" data-path={path} id={fieldId(path)} tabIndex={-1}>
      <legend>Form fields</legend>
      {rows.map((r, i) => (
        <div class={`row-edit${rowError(ed.errors, path, i) ? ' has-error' : ''}`} key={i} data-path={`${path}.${i}`}>
          <label>Label<input type="text" maxLength={80} disabled={!ed.canEdit} value={r.label} onInput={(e) => put(i, { label: e.currentTarget.value })} /></label>
          <label>Key<input type="text" maxLength={32} disabled={!ed.canEdit} value={r.key} onInput={(e) => put(i, { key: e.currentTarget.value })} /></label>
          <label>Type
            <select disabled={!ed.canEdit} value={r.type} onChange={(e) => put(i, { type: e.currentTarget.value, ...(e.currentTarget.value === 'select' ? { options: r.options ?? [] } : {}) })}>
              {TYPES.map(([v, t]) => <option key={v} value={v}>{t}</option>)}
            </select>
          </label>
          <label class="check"><input type="checkbox" disabled={!ed.canEdit} checked={r.required} onChange={(e) => put(i, { required: e.currentTarget.checked })} /> Required</label>
          {r.type === 'select' && (
            <label class="grow">Choices (one per line)
              <textarea rows={2} disabled={!ed.canEdit} value={(r.options ?? []).join('\n')} onInput={(e) => put(i, { options: e.currentTarget.value.split('\n') })} />
            </label>
          )}
          {ed.canEdit && <button type="button" class="secondary small danger" aria-label={`Remove field ${r.label || i + 1}`} onClick={() => ed.set(path, rows.filter((_, j) => j !== i))}>Remove</button>}
          {rowError(ed.errors, path, i) && <small class="field-error">{rowError(ed.errors, path, i)}</small>}
        </div>
      ))}
      {ed.canEdit && rows.length < 12 && (
        <button type="button" class="secondary small" onClick={() => ed.set(path, [...rows, { key: `field_${rows.length + 1}`, label: '', type: 'text', required: false }])}>Add a field</button>
      )}
      <small class="hint">Up to 12 fields; a key is lower case letters, digits and _ (it names the value in the saved lead)</small>
      {listError && <small class="field-error">{listError}</small>}
    </fieldset>
  );
}

export function WeeklyHours() {
  const ed = useEditor();
  const path = 'behavior.hours.weekly';
  const rows: Period[] = ed.draft.behavior?.hours?.weekly ?? [];
  const put = (i: number, change: Partial<Period>) => ed.set(path, rows.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return (
    <fieldset class="rows-editor wide" data-path={path} id={fieldId(path)} tabIndex={-1}>
      <legend>Open periods</legend>
      {rows.map((r, i) => (
        <div class={`row-edit${rowError(ed.errors, path, i) ? ' has-error' : ''}`} key={i}>
          <label>Day
            <select disabled={!ed.canEdit} value={String(r.day)} onChange={(e) => put(i, { day: Number(e.currentTarget.value) })}>
              {DAYS.map((d, n) => <option key={d} value={String(n)}>{d}</option>)}
            </select>
          </label>
          <label>Opens<input type="time" disabled={!ed.canEdit} value={r.open} onInput={(e) => put(i, { open: e.currentTarget.value })} /></label>
          <label>Closes<input type="time" disabled={!ed.canEdit} value={r.close} onInput={(e) => put(i, { close: e.currentTarget.value })} /></label>
          {ed.canEdit && <button type="button" class="secondary small danger" aria-label={`Remove ${DAYS[r.day]} ${r.open} to ${r.close}`} onClick={() => ed.set(path, rows.filter((_, j) => j !== i))}>Remove</button>}
          {rowError(ed.errors, path, i) && <small class="field-error">{rowError(ed.errors, path, i)}</small>}
        </div>
      ))}
      {ed.canEdit && rows.length < 21 && <button type="button" class="secondary small" onClick={() => ed.set(path, [...rows, { day: 1, open: '09:00', close: '17:00' }])}>Add a period</button>}
      {ed.errors[path] && <small class="field-error">{ed.errors[path]}</small>}
    </fieldset>
  );
}
