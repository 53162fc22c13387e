/**
 * Connecting a provider: the catalog as tiles (what each gives), then the form for the chosen one. The server
 * checks the key against the provider before it saves anything, so a wrong key is refused here with its reason.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Form, FormErrors, Loading, TextField, useAction, useLoad } from '../../ui.js';
import { BLURB, GIVES, type CatalogEntry, type Connection, type Kind } from './model.js';

export function Catalog({ onPick, picked }: { onPick: (e: CatalogEntry) => void; picked?: Kind | null }) {
  const cat = useLoad(() => api<{ items: CatalogEntry[] }>('GET', '/providers/catalog'));
  if (!cat.data) return <Loading error={cat.error} />;
  // Hosted services first (the quickest start), local servers, then speech.
  const order: Kind[] = ['openai', 'gemini', 'openai_compatible', 'speech'];
  const items = [...cat.data.items].sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  return (
    <ul class="grid catalog" aria-label="Providers you can connect">
      {items.map((e) => (
        <li key={e.kind} class={`tile${picked === e.kind ? ' selected' : ''}`}>
          <h3>{e.label}</h3>
          <p class="muted">{BLURB[e.kind]}</p>
          <div class="row">{GIVES.filter(([k]) => e.capabilities[k]).map(([, t]) => <span class="badge accent" key={t}>{t}</span>)}</div>
          <div class="tile-foot">
            <button type="button" class={picked === e.kind ? '' : 'secondary'} aria-pressed={picked === e.kind} onClick={() => onPick(e)}>
              Connect {e.label.replace(/ \(.*\)$/, '')}
            </button>
          </div>
        </li>
      ))}
    </ul>
  );
}

export function ConnectForm({ entry, onConnected, onCancel }: { entry: CatalogEntry; onConnected: (c: Connection) => void; onCancel?: () => void }) {
  const [name, setName] = useState(entry.label.replace(/ \(.*\)$/, ''));
  const [apiKey, setApiKey] = useState('');
  const [baseUrl, setBaseUrl] = useState('');
  const [advanced, setAdvanced] = useState(false);
  const act = useAction();
  const local = entry.kind === 'openai_compatible';
  const box = useRef<HTMLDivElement>(null);
  // Picking a tile brings its form into view with the first field to fill focused.
  useEffect(() => {
    box.current?.scrollIntoView({ block: 'start', behavior: 'smooth' });
    box.current?.querySelector<HTMLInputElement>(local ? 'input[name="baseUrl"]' : 'input[name="apiKey"]')?.focus({ preventScroll: true });
  }, [entry.kind]);
  const submit = () => act.run(async () => {
    const body: Record<string, unknown> = { kind: entry.kind, name, apiKey: apiKey || (local ? 'none' : '') };
    if (baseUrl.trim()) body.baseUrl = baseUrl.trim();
    onConnected(await api<Connection>('POST', '/providers', body));
  });
  return (
    <div ref={box} class="card connect-form">
    <Form onSubmit={submit} name="connect">
      <h3>Connect {entry.label}</h3>
      {!local && <p class="muted">{entry.docsHint}</p>}
      {local && (
        <div class="notice">
          <strong>Any server with the OpenAI Chat Completions API</strong>: Ollama, LM Studio, vLLM, llama.cpp, or a hosted one such as
          OpenRouter, Groq or Together (their address and key). <strong>Running a model on your own machine?</strong> Start Ollama (<code>ollama serve</code>), LM Studio's server or vLLM, and use
          its address ending in <code>/v1</code>, for example <code>http://localhost:11434/v1</code> for Ollama or <code>http://localhost:1234/v1</code> for
          LM Studio. Addresses on this machine or your own network (localhost, 192.168.x.x, 10.x.x.x) are refused unless this server was
          started with <code>ALLOW_PRIVATE_NETWORK=true</code> (a safety default: bots cannot reach into your network). If this server runs in
          Docker, <code>localhost</code> is the container itself: use <code>http://host.docker.internal:11434/v1</code>.
        </div>
      )}
      <TextField label="Name" name="name" value={name} onInput={setName} required errors={act.fields} hint="How this connection is listed when you choose a model." />
      {(local || advanced) && (
        <TextField label="Base URL" name="baseUrl" value={baseUrl} onInput={setBaseUrl} required={local} errors={act.fields} type="url"
          placeholder={entry.defaultBaseUrl ?? 'http://localhost:11434/v1'} hint={local ? 'The address of the server, ending in /v1.' : `Leave empty for ${entry.defaultBaseUrl}.`} />
      )}
      <TextField label={local ? 'API key (any text if your server needs none)' : 'API key'} name="apiKey" type="password" value={apiKey} onInput={setApiKey}
        required={!local} autocomplete="off" errors={act.fields} hint="Checked with the provider before it is saved; stored encrypted and never shown again." />
      {!local && !advanced && <p><button type="button" class="link" onClick={() => setAdvanced(true)}>Use a different address (a proxy or gateway)</button></p>}
      <FormErrors act={act} shown={['name', 'apiKey', 'baseUrl', 'kind']} />
      <div class="actions">
        <button type="submit" disabled={act.busy}>{act.busy ? 'Checking the key…' : 'Check key and connect'}</button>
        {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      </div>
    </Form>
    </div>
  );
}
