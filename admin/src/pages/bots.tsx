/** #/bots: every bot, newest first, with its status and live version, and (admins) a bot made from a template. */
import { useState } from 'preact/hooks';
import { api, query } from '../api.js';
import { usePaged } from '../paging.js';
import { go } from '../router.js';
import { useSession } from '../session.js';
import type { Bot, BotSummary, Page, Template } from '../types.js';
import { EmptyState, ErrorText, Form, Loading, PageHeader, RelativeTime, Select, useAction, useLoad } from '../ui.js';

export function BotsPage() {
  const { atLeast } = useSession();
  const list = usePaged((before) => api<Page<BotSummary>>('GET', `/bots${query({ limit: 50, before })}`));
  return (
    <section>
      <PageHeader title="Bots" description="Each bot is an agent for your website: its instructions, model, voice, look and rules. Open one to change its settings, try it and embed it." />
      {atLeast('admin') && <CreateBot />}
      {!list.items ? <Loading error={list.error} /> : list.items.length === 0 ? (
        <EmptyState title="No bots yet." icon="🤖" action={atLeast('admin') ? <a class="button secondary" href="#/start">Guided set-up</a> : undefined}>
          {atLeast('admin') ? 'Create one above from a template, or let the guided set-up connect a provider and pick a model first.' : 'An admin of this workspace creates bots; they will be listed here.'}
        </EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="list bots">
            <thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Live version</th><th scope="col">Changed</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {list.items.map((b) => (
                <tr key={b.id}>
                  <td><a href={`#/bots/${b.id}`}><strong>{b.name}</strong></a></td>
                  <td><span class={`badge ${b.status}`}>{b.status}</span></td>
                  <td>{b.publishedVersion ? `version ${b.publishedVersion}` : <span class="muted">not published</span>}</td>
                  <td><RelativeTime ms={b.updatedAt} /></td>
                  <td><a href={`#/try/${b.id}`}>Try it<span class="sr-only"> ({b.name})</span></a></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
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
      <label class="field"><span>New bot name</span>
        <input name="name" value={name} required maxLength={80} placeholder="Support desk" onInput={(e) => setName(e.currentTarget.value)} /></label>
      <Select label="Template" name="templateId" value={templateId} options={options} onChange={setTemplateId} />
      <button type="submit" disabled={act.busy || !templates.data}>Create bot</button>
      {chosen && <p class="muted wide">{chosen.description}</p>}
      <ErrorText error={act.error ?? templates.error} />
    </Form>
  );
}
