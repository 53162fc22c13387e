/**
 * Publishing: what the draft changes against the published version, the publish button, and the problems the
 * API finds (details: setting path and message), each a link that opens its field.
 */
import type { Json, Problem } from './types.js';
import { ChangeTable } from './changes.js';
import { whereIs } from './groups.js';
import { diff } from './paths.js';

/**
 * The API words its problems for programs too ("one of the models GET /api/v1/providers/prv_1/models lists"); on
 * this page the lists are the pickers beside the field, so those references read as people say them.
 */
export function forPeople(message: string): string {
  return message
    .replace(/one of the models GET \/api\/v1\/providers\/[^/\s]+\/models lists/g, "one of the connection's models")
    .replace(/one of the connections GET \/api\/v1\/providers lists/g, 'one of the connections under Providers')
    .replace(/(GET|POST) \/api\/v1\/providers\/[^/\s]+\/(voices|models)/g, "the connection's $2");
}

export function Problems({ problems, onField }: { problems: Problem[]; onField: (path: string) => void }) {
  if (!problems.length) return null;
  return (
    <div class="problems-box error" role="alert">
      <p><strong>The draft cannot be published yet.</strong> Fix {problems.length === 1 ? 'this' : `these ${problems.length}`} and publish again:</p>
      <ul class="problems">
        {problems.map((p) => (
          <li key={p.path + p.message}>
            <button type="button" class="link" onClick={() => onField(p.path)}><code>{p.path}</code></button> {forPeople(p.message)}
            <small class="muted"> ({whereIs(p.path)})</small>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function PublishTab(props: { draft: Json; published: Json | null; publishedVersion: number | null; dirty: boolean; onField: (path: string) => void }) {
  const changes = diff(props.published ?? {}, props.draft);
  return (
    <section class="card" aria-labelledby="changes-title">
      <h2 id="changes-title">Draft compared with {props.publishedVersion ? `version ${props.publishedVersion}` : 'nothing published yet'}</h2>
      {props.dirty && <p class="warn" role="note">You have unsaved edits; they are not in this comparison until you save.</p>}
      {!props.published ? <p class="muted">Nothing is published yet: publishing makes the draft live for the first time.</p>
        : changes.length === 0 ? <p class="muted">The saved draft is the same as the published version.</p>
        : <>
          <p>{changes.length} setting{changes.length === 1 ? '' : 's'} will change when you publish.</p>
          <ChangeTable changes={changes} before={`Version ${props.publishedVersion}`} after="Draft" onField={props.onField} caption="Draft compared with the published version" />
        </>}
    </section>
  );
}
