/** #/bots: every bot, newest first, and a form to create one from a template. */
import { useState } from 'preact/hooks';
import { api, query } from '../api.js';
import { usePaged } from '../paging.js';
import { go } from '../router.js';
import { useSession } from '../session.js';
import type { Bot, BotSummary, Page, Template } from '../types.js';
import { ErrorText, Field, Form, Loading, Select, useAction, useLoad, when } from '../ui.js';

export function BotsPage() {
  const { atLeast } = useSession();
  const list = usePaged((before) => api<Page<BotSummary>>('GET', `/bots${query({ limit: 50, before })}`));
  return (
    <section>
      <h1>Bots</h1>
      {atLeast('admin') && <CreateBot />}
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? <p class="muted">No bots yet.</p> : (
        <table class="list bots">
          <thead><tr><th>Name</th><th>Status</th><th>Published</th><th>Changed</th></tr></thead>
          <tbody>
            {list.items.map((b) => (
              <tr key={b.id}>
                <td><a href={`#/bots/${b.id}`}>{b.name}</a></td>
                <td><span class={`badge ${b.status}`}>{b.status}</span></td>
                <td>{b.publishedVersion ? `version ${b.publishedVersion}` : 'not published'}</td>
                <td>{when(b.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.items && <ErrorText error={list.error} />}
      {list.hasMore && <button type="button" class="secondary" onClick={list.more}>Older bots</button>}
    </section>
  );
}

function CreateBot() {
  const templates = useLoad(() => api<{ items: Template[] }>('GET', '/bots/templates'));
  const [name, setName] = useState('');
  const [templateId, setTemplateId] = useState('blank');
  const act = useAction();
  const submit = () => act.run(async () => {
    const bot = await api<Bot>('POST', '/bots', { name, templateId });
    go(`/bots/${bot.id}`);
  });
  const options = (templates.data?.items ?? []).map((t): [string, string] => [t.id, t.name]);
  const chosen = templates.data?.items.find((t) => t.id === templateId);
  return (
    <Form onSubmit={submit} class="card inline-form" name="create-bot">
      <Field label="New bot name" name="name" value={name} onInput={setName} required />
      <Select label="Template" name="templateId" value={templateId} options={options} onChange={setTemplateId} />
      <button type="submit" disabled={act.busy || !templates.data}>Create bot</button>
      {chosen && <p class="muted wide">{chosen.description}</p>}
      <ErrorText error={act.error ?? templates.error} />
    </Form>
  );
}
