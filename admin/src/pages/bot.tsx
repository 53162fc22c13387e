/**
 * #/bots/<id>: one bot: rename, pause or resume, publish the draft (showing every problem the server finds),
 * and the embed snippets. The full settings editor is not part of this version (docs/admin.md).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import type { Bot, Embed } from '../types.js';
import { ErrorText, Field, Form, Loading, useAction, useLoad, when } from '../ui.js';

interface Problem { path: string; message: string }

export function BotPage({ id }: { id: string }) {
  const { atLeast } = useSession();
  const bot = useLoad(() => api<Bot>('GET', `/bots/${encodeURIComponent(id)}`), [id]);
  const embed = useLoad(() => api<Embed>('GET', `/bots/${encodeURIComponent(id)}/embed`), [id, bot.data?.publishedVersion]);
  const act = useAction();
  const [published, setPublished] = useState<number | null>(null);
  if (!bot.data) return <section><p><a href="#/bots">← Bots</a></p><Loading error={bot.error} /></section>;
  const b = bot.data;
  const canEdit = atLeast('admin');
  const change = (path: string, body: unknown) => act.run(async () => {
    setPublished(null);
    const updated = await api<Bot>('POST', `/bots/${encodeURIComponent(id)}${path}`, body);
    bot.setData(updated);
    if (path === '/publish') setPublished(updated.publishedVersion);
  });
  const problems = act.failure?.code === 'invalid' && Array.isArray(act.failure.details) ? (act.failure.details as Problem[]) : [];

  return (
    <section class="bot">
      <p><a href="#/bots">← Bots</a></p>
      <h1>{b.name}</h1>
      <dl class="facts">
        <dt>Status</dt><dd><span class={`badge ${b.status}`}>{b.status}</span></dd>
        <dt>Published</dt><dd>{b.published ? `version ${b.published.version}, ${when(b.published.publishedAt)}` : 'not published yet'}</dd>
        <dt>Draft revision</dt><dd>{b.revision}</dd>
        <dt>Id</dt><dd><code>{b.id}</code></dd>
      </dl>
      {canEdit && (
        <div class="actions">
          <button type="button" disabled={act.busy} onClick={() => change('/publish', { revision: b.revision })}>Publish draft</button>
          {b.status === 'running'
            ? <button type="button" class="secondary" disabled={act.busy} onClick={() => change('/status', { status: 'paused' })}>Pause</button>
            : <button type="button" class="secondary" disabled={act.busy} onClick={() => change('/status', { status: 'running' })}>Resume</button>}
        </div>
      )}
      {published !== null && <p class="ok" role="status">Published as version {published}.</p>}
      {problems.length > 0 ? (
        <div class="error" role="alert">
          <p>The draft cannot be published yet:</p>
          <ul class="problems">{problems.map((p) => <li key={p.path + p.message}><code>{p.path}</code> {p.message}</li>)}</ul>
        </div>
      ) : <ErrorText error={act.error} />}
      {canEdit && <Rename bot={b} onRenamed={(updated) => bot.setData(updated)} />}
      <h2>Embed on a website</h2>
      {!embed.data ? <Loading error={embed.error} /> : (
        <div class="embed">
          {!embed.data.published && <p class="muted">Publish the bot first: the widget shows only published bots.</p>}
          <p>Paste this before <code>&lt;/body&gt;</code> ({embed.data.layout} layout):</p>
          <pre class="snippet">{embed.data.snippets[embed.data.layout]}</pre>
          <details>
            <summary>Other layouts</summary>
            {Object.entries(embed.data.snippets).filter(([l]) => l !== embed.data!.layout).map(([l, s]) => (
              <div key={l}><h3>{l}</h3><pre class="snippet">{s}</pre></div>
            ))}
          </details>
        </div>
      )}
    </section>
  );
}

function Rename({ bot, onRenamed }: { bot: Bot; onRenamed: (b: Bot) => void }) {
  const [name, setName] = useState(bot.name);
  const act = useAction();
  const submit = () => act.run(async () => onRenamed(await api<Bot>('PATCH', `/bots/${encodeURIComponent(bot.id)}`, { revision: bot.revision, name })));
  return (
    <Form onSubmit={submit} class="inline-form" name="rename">
      <Field label="Name" name="name" value={name} onInput={setName} required />
      <button type="submit" class="secondary" disabled={act.busy || name === bot.name}>Rename</button>
      <ErrorText error={act.error} />
    </Form>
  );
}
