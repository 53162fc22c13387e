/** A list of workspace records (knowledge sources, HTTP tools, MCP servers) a bot uses, ticked on or off. */
import type { ComponentChildren } from 'preact';
import { errorAt } from '../../ui.js';
import { fieldId, useEditor } from './editor.js';

export interface Item { id: string; name: string; meta?: ComponentChildren }

export function Checklist(props: {
  path: string; legend: string; items: Item[] | null; error?: string | null; empty: ComponentChildren;
  isOn: (id: string) => boolean; toggle: (id: string, on: boolean) => void; extra?: (id: string) => ComponentChildren;
}) {
  const ed = useEditor();
  const error = errorAt(ed.errors, props.path);
  return (
    <fieldset class={`checklist${error ? ' has-error' : ''}`} data-path={props.path} id={fieldId(props.path)} tabIndex={-1}>
      <legend>{props.legend}</legend>
      {props.error ? <p class="error">{props.error}</p> : !props.items ? <p class="muted">Loading…</p> : props.items.length === 0 ? <p class="muted">{props.empty}</p> : (
        <ul>
          {props.items.map((it) => (
            <li key={it.id}>
              <label class="check">
                <input type="checkbox" disabled={!ed.canEdit} checked={props.isOn(it.id)} onChange={(e) => props.toggle(it.id, e.currentTarget.checked)} />
                <span><strong>{it.name}</strong>{it.meta && <small class="muted"> {it.meta}</small>}</span>
              </label>
              {props.isOn(it.id) && props.extra?.(it.id)}
            </li>
          ))}
        </ul>
      )}
      {error && <small class="field-error">{error}</small>}
    </fieldset>
  );
}
