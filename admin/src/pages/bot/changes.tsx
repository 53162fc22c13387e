/** Differences between two configs as a table (setting, before, after), each setting linked to its field. */
import { whereIs } from './groups.js';
import { shown, type Change } from './paths.js';

export function ChangeTable(props: { changes: Change[]; before: string; after: string; onField?: (path: string) => void; caption: string }) {
  if (!props.changes.length) return null;
  return (
    <div class="table-scroll">
      <table class="list diff">
        <caption class="sr-only">{props.caption}</caption>
        <thead><tr><th scope="col">Setting</th><th scope="col">{props.before}</th><th scope="col">{props.after}</th></tr></thead>
        <tbody>
          {props.changes.map((c) => (
            <tr key={c.path}>
              <th scope="row">
                {props.onField ? <button type="button" class="link" onClick={() => props.onField!(c.path)}><code>{c.path}</code></button> : <code>{c.path}</code>}
                <small class="muted"> {whereIs(c.path)}</small>
              </th>
              <td class="before" data-label={props.before}>{shown(c.before)}</td>
              <td class="after" data-label={props.after}>{shown(c.after)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
