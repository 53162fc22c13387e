/** The inbox's right pane: who the visitor is and where they are, the handoff, tags, export and delete. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { go } from '../../router.js';
import { useSession } from '../../session.js';
import { confirmDialog, ErrorText, RelativeTime, toast, useAction } from '../../ui.js';
import { visitorName, type Pane } from './index.js';
import type { InboxModel } from './model.js';
import type { Conv } from './types.js';

export function Details({ conv: c, model, botName, onPane }: { conv: Conv; model: InboxModel; botName: (id: string) => string; onPane: (p: Pane) => void }) {
  const { atLeast } = useSession();
  const path = `/conversations/${encodeURIComponent(c.id)}`;
  const act = useAction();
  const remove = async () => {
    if (!(await confirmDialog({ title: 'Delete this conversation?', message: 'Its messages, images and ratings are deleted for good. This cannot be undone.', confirmText: 'Delete', danger: true }))) return;
    const ok = await act.run(() => api('DELETE', path));
    if (ok) { model.convs.delete(c.id); toast('Conversation deleted'); go('/inbox'); }
  };
  return (
    <aside class="inbox-details" aria-label="Details">
      <div class="details-head">
        <button type="button" class="secondary small back-pane" onClick={() => onPane('thread')}>← Conversation</button>
        <h2>{visitorName(c)}</h2>
      </div>
      {c.handoff && c.status === 'open' && (
        <div class={`handoff-card ${c.handoff.state}`}>
          <h3>{c.handoff.state === 'requested' ? 'Asked for a person' : 'Handed to a person'} <small class="muted"><RelativeTime ms={c.handoff.requestedAt} /></small></h3>
          {c.handoff.reason && <p><strong>Why:</strong> {c.handoff.reason}</p>}
          {c.handoff.summary && <p class="muted">{c.handoff.summary}</p>}
        </div>
      )}
      <dl class="facts">
        {c.visitor?.email && <><dt>E-mail</dt><dd><a href={`mailto:${c.visitor.email}`}>{c.visitor.email}</a></dd></>}
        <dt>Visitor</dt><dd><code>{c.visitorId}</code>{c.verified && <span class="badge good">verified</span>}</dd>
        <dt>Bot</dt><dd><a href={`#/bots/${c.botId}`}>{botName(c.botId)}</a></dd>
        <dt>Page</dt><dd>{/^https?:\/\//i.test(c.page.url) ? <a href={c.page.url} target="_blank" rel="noopener noreferrer">{c.page.title || c.page.url}</a> : c.page.title || '—'}</dd>
        <dt>Started</dt><dd><RelativeTime ms={c.createdAt} /></dd>
        <dt>Last message</dt><dd><RelativeTime ms={c.lastMessageAt} /></dd>
        <dt>Messages</dt><dd>{c.messageCount}</dd>
        <dt>Status</dt><dd>{c.status === 'open' ? 'open' : `ended${c.endReason ? ` (${c.endReason.replace(/_/g, ' ')})` : ''}`}</dd>
        {c.csat !== null && <><dt>Rating</dt><dd>{c.csat}/5</dd></>}
        <dt>Cost</dt><dd>${c.costUsd.toFixed(4)}</dd>
      </dl>
      <Tags c={c} model={model} canEdit={atLeast('agent')} />
      <h3>Export</h3>
      <p class="row">
        <a class="button secondary small" href={`/api/v1${path}/export?format=md`} download={`${c.id}.md`}>Markdown</a>
        <a class="button secondary small" href={`/api/v1${path}/export?format=json`} download={`${c.id}.json`}>JSON</a>
      </p>
      {atLeast('admin') && (
        <>
          <h3>Danger zone</h3>
          <button type="button" class="danger small" disabled={act.busy} onClick={remove}>Delete conversation</button>
          <ErrorText error={act.error} />
        </>
      )}
    </aside>
  );
}

function Tags({ c, model, canEdit }: { c: Conv; model: InboxModel; canEdit: boolean }) {
  const [draft, setDraft] = useState('');
  const act = useAction();
  const save = (tags: string[]) => act.run(async () => { model.put(await api('POST', `/conversations/${encodeURIComponent(c.id)}/tags`, { tags })); setDraft(''); });
  const add = () => {
    const more = draft.split(',').map((t) => t.trim()).filter(Boolean);
    if (more.length) save([...c.tags, ...more]);
  };
  return (
    <div class="tags">
      <h3 id="tags-title">Tags</h3>
      <ul class="tag-list" aria-labelledby="tags-title">
        {c.tags.length === 0 && <li class="muted">{canEdit ? 'None yet: tags help you find conversations later.' : 'None.'}</li>}
        {c.tags.map((t) => (
          <li key={t} class="badge tag">#{t}{canEdit && <button type="button" class="icon" aria-label={`Remove tag ${t}`} disabled={act.busy} onClick={() => save(c.tags.filter((x) => x !== t))}>×</button>}</li>
        ))}
      </ul>
      {canEdit && (
        <form class="row tag-form" name="tags" onSubmit={(e) => { e.preventDefault(); add(); }}>
          <label class="visually-hidden" for={`tag-${c.id}`}>New tag</label>
          <input id={`tag-${c.id}`} name="tag" value={draft} maxLength={50} placeholder="Add a tag" onInput={(e) => setDraft(e.currentTarget.value)} />
          <button type="submit" class="secondary small" disabled={act.busy || !draft.trim()}>Add</button>
        </form>
      )}
      <ErrorText error={act.error} />
    </div>
  );
}
