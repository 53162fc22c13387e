/**
 * #/start: the guided first run, from an empty workspace to a bot answering: connect a provider -> choose a
 * model -> create a bot from a template (business and agent name asked) and publish it -> try it -> copy the
 * embed snippet. Each step reads what already exists, so coming back (or reloading) continues where it stopped.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { go } from '../../router.js';
import { useSession } from '../../session.js';
import type { Bot, Template } from '../../types.js';
import { EmptyState, ErrorText, Form, FormErrors, Loading, PageHeader, Section, SelectField, TextField, useAction, useLoad } from '../../ui.js';
import { Catalog, ConnectForm } from '../providers/connect.js';
import { canChat, chatModels, type CatalogEntry, type Connection, type Models } from '../providers/model.js';
import { EmbedSnippets } from '../try/index.js';

const STEPS = ['Connect a provider', 'Choose a model', 'Create your bot', 'Try it', 'Put it on your site'];

function Steps({ at }: { at: number }) {
  return (
    <ol class="steps" aria-label="Set-up steps">
      {STEPS.map((s, i) => <li key={s} class={i < at ? 'done' : i === at ? 'current' : ''} aria-current={i === at ? 'step' : undefined}>{s}</li>)}
    </ol>
  );
}

export default function StartPage({ rest }: { rest: string[] }) {
  const { atLeast } = useSession();
  if (!atLeast('admin')) return <EmptyState title="Ask an admin to set up a bot">Connecting providers and creating bots needs the admin role.</EmptyState>;
  if (rest[0] === 'bot' && rest[1]) return <Finish id={rest[1]} />;
  return <Build />;
}

function Build() {
  const conns = useLoad(() => api<{ items: Connection[] }>('GET', '/providers'));
  const bots = useLoad(() => api<{ items: unknown[] }>('GET', '/bots?limit=1'));
  const [chosen, setChosen] = useState<string | null>(null);
  const [adding, setAdding] = useState(false);
  const [entry, setEntry] = useState<CatalogEntry | null>(null);
  if (!conns.data) return <Loading error={conns.error} />;
  const usable = conns.data.items.filter(canChat);
  const conn = usable.find((c) => c.id === chosen) ?? usable[0];
  const connected = (c: Connection) => { setAdding(false); setEntry(null); setChosen(c.id); conns.reload(); };
  return (
    <>
      <PageHeader title={bots.data?.items.length ? 'Create a bot' : 'Set up your first bot'}
        description="Five short steps. At the end your bot answers here, and you get the code to put it on your website." />
      <Steps at={conn && !adding ? 1 : 0} />
      {(!conn || adding) ? (
        <Section title="1. Connect a provider" id="step-provider" description="Your bot's replies are written by an AI model from a provider you choose. Paste an API key; it is checked before it is saved.">
          <Catalog picked={entry?.kind ?? null} onPick={setEntry} />
          {entry && <ConnectForm key={entry.kind} entry={entry} onConnected={connected} onCancel={conn ? () => setAdding(false) : () => setEntry(null)} />}
          {entry?.letter === 'D' && <p class="notice warn">A speech provider gives voices, not chat replies: connect OpenAI, Gemini or an OpenAI-compatible server as well.</p>}
        </Section>
      ) : (
        <>
          <p class="notice" role="status">✓ Connected to <strong>{conn.name}</strong>.{' '}
            {usable.length > 1 && <>Use{' '}
              <select aria-label="Connection to use" value={conn.id} onChange={(e) => setChosen(e.currentTarget.value)}>{usable.map((c) => <option key={c.id} value={c.id}>{c.name}</option>)}</select>{' '}</>}
            <button type="button" class="link" onClick={() => setAdding(true)}>Connect another provider</button></p>
          <CreateBot conn={conn} />
        </>
      )}
    </>
  );
}

function CreateBot({ conn }: { conn: Connection }) {
  const [refresh, setRefresh] = useState(0);
  const models = useLoad(() => api<Models>('GET', `/providers/${conn.id}/models${refresh ? '?refresh=1' : ''}`), [conn.id, refresh]);
  const templates = useLoad(() => api<{ items: Template[] }>('GET', '/bots/templates'));
  const [model, setModel] = useState('');
  const [templateId, setTemplateId] = useState('customer-support');
  // The workspace is usually named after the business: start from its name (the owner can change it here).
  const [business, setBusiness] = useState(useSession().me.workspace.name);
  const [agent, setAgent] = useState('Ava');
  const act = useAction();
  const list = chatModels(models.data);
  useEffect(() => {
    if (!models.data) return;
    const rec = models.data.recommended;
    setModel(rec && list.some((m) => m.id === rec) ? rec : list[0]?.id ?? '');
  }, [models.data]);
  const create = () => act.run(async () => {
    const name = `${business.trim()} ${templateId === 'sales-lead-capture' ? 'sales' : 'assistant'}`.slice(0, 80);
    const bot = await api<Bot>('POST', '/bots', { name, templateId });
    const patched = await api<Bot>('PATCH', `/bots/${bot.id}`, {
      revision: bot.revision,
      patch: { identity: { businessName: business.trim(), agentName: agent.trim() || 'Ava' }, brain: { connectionId: conn.id, model } },
    });
    try {
      await api('POST', `/bots/${bot.id}/publish`, { revision: patched.revision });
    } finally {
      // Created either way: continue with it (a refused publish shows its problems on the next step).
      go(`/start/bot/${bot.id}`);
    }
  });
  return (
    <Form onSubmit={create} name="create-bot">
      <Section title="2. Choose a model" id="step-model" description={`The model writes your bot's replies. These are the ones your ${conn.name} key can use.`}
        actions={<button type="button" class="secondary small" onClick={() => setRefresh((n) => n + 1)}>Ask {conn.name} again</button>}>
        {!models.data ? <Loading error={models.error} text={`Asking ${conn.name} for its models…`} /> : list.length === 0
          ? <p class="error">{conn.name} listed no chat models for this key. Check the key's permissions with the provider, or connect another provider.</p>
          : <SelectField label="Model" name="model" value={model} onChange={setModel} options={list.map((m) => [m.id, m.id === models.data!.recommended ? `${m.label} (recommended)` : m.label])}
              hint="You can change it later in the bot's settings." errors={act.fields} path="brain.model" />}
      </Section>
      <Section title="3. Create your bot" id="step-bot" description="Start from a template; everything can be changed later.">
        {!templates.data ? <Loading error={templates.error} /> : (
          <fieldset class="templates">
            <legend>Template</legend>
            <div class="grid">
              {templates.data.items.map((t) => (
                <label class={`tile choice${templateId === t.id ? ' selected' : ''}`} key={t.id}>
                  <span class="row"><input type="radio" name="templateId" value={t.id} checked={templateId === t.id} onChange={() => setTemplateId(t.id)} /> <strong>{t.name}</strong></span>
                  <span class="muted">{t.description}</span>
                </label>
              ))}
            </div>
          </fieldset>
        )}
        <div class="two">
          <TextField label="Your business or website name" name="businessName" value={business} onInput={setBusiness} required maxLength={120} errors={act.fields} path="identity.businessName"
            hint="Used in the welcome and the instructions: “Hi! I'm Ava from Acme.”" placeholder="Acme" />
          <TextField label="The assistant's name" name="agentName" value={agent} onInput={setAgent} required maxLength={60} errors={act.fields} path="identity.agentName"
            hint="Shown as the chat's title." />
        </div>
        <FormErrors act={act} shown={['brain.model', 'identity.businessName', 'identity.agentName']} />
        <button type="submit" disabled={act.busy || !model}>{act.busy ? 'Creating…' : 'Create and publish the bot'}</button>
      </Section>
    </Form>
  );
}

function Finish({ id }: { id: string }) {
  const bot = useLoad(() => api<Bot>('GET', `/bots/${id}`), [id]);
  const pub = useAction();
  if (!bot.data) return <Loading error={bot.error} />;
  const b = bot.data;
  const publish = () => pub.run(async () => { await api('POST', `/bots/${id}/publish`, { revision: b.revision }); bot.reload(); });
  const details = Array.isArray(pub.failure?.details) ? (pub.failure!.details as Array<{ path: string; message: string }>) : [];
  return (
    <>
      <PageHeader title={b.publishedVersion ? `${b.name} is ready` : `${b.name} is created`}
        description={b.publishedVersion ? 'Say hello below: this is the real chat your visitors will see.' : 'It is not published yet, so only you can try it (the draft).'} />
      <Steps at={3} />
      {!b.publishedVersion && (
        <div class="notice warn">
          <p>Publishing was refused. Fix what is listed in the bot's settings, or publish again.</p>
          {details.length > 0 && <ul>{details.map((d) => <li key={d.path}><a href={`#/bots/${id}`}><code>{d.path}</code></a>: {d.message}</li>)}</ul>}
          <ErrorText error={details.length ? null : pub.error} />
          <button type="button" onClick={publish} disabled={pub.busy}>Publish</button>
        </div>
      )}
      <Section title="4. Try it" id="step-try" description="Type a question, for example “What can you do?”.">
        <TryFrame id={id} published={!!b.publishedVersion} />
      </Section>
      <EmbedSnippets id={id} />
      <Section title="What next" id="next">
        <ul class="next-steps">
          <li><a href={`#/bots/${id}`}>Write its instructions and adjust the welcome</a> in the bot's settings.</li>
          <li><a href="#/knowledge">Add knowledge</a>: your website or documents, so it answers about your business.</li>
          <li><a href="#/team">Invite your team</a> to take over conversations.</li>
          <li><a href={`#/try/${id}`}>Try it in other layouts</a> and share a full-page chat link.</li>
        </ul>
      </Section>
    </>
  );
}

/** The real widget, inline, for the published bot or (not published) its draft with a preview token. */
function TryFrame({ id, published }: { id: string; published: boolean }) {
  const [src, setSrc] = useState<string | null>(published ? `/chat/${encodeURIComponent(id)}` : null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (published) { setSrc(`/chat/${encodeURIComponent(id)}`); return; }
    api<{ token: string }>('POST', `/bots/${id}/preview`).then((t) => setSrc(`/chat/${encodeURIComponent(id)}#preview=${encodeURIComponent(t.token)}`), (e) => setError(e.message));
  }, [id, published]);
  return src ? <iframe class="try-frame" title="Chat with your bot" src={src} allow="microphone; camera; autoplay; clipboard-write" /> : <Loading error={error} />;
}
