/** HTTP tools: the list, add, edit, delete, and a test run with sample arguments showing the request and the answer. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSession } from '../../session.js';
import { EmptyState } from '../../ui/layout.js';
import { ErrorText, Form, Loading, useAction, useLoad } from '../../ui.js';
import { Code, ConfirmButton, Pill } from '../kit/kit.js';
import { HttpToolForm } from './http-form.js';
import { parseJson, sampleArgs, type HttpTest, type HttpTool } from './types.js';

export function HttpToolsTab() {
  const { atLeast } = useSession();
  const canEdit = atLeast('admin');
  const list = useLoad(() => api<{ items: HttpTool[] }>('GET', '/tools/http'));
  const [adding, setAdding] = useState(false);
  if (!list.data) return <Loading error={list.error} />;
  return (
    <>
      {canEdit && (adding
        ? <HttpToolForm onSaved={() => { setAdding(false); list.reload(); }} onCancel={() => setAdding(false)} />
        : <p><button type="button" onClick={() => setAdding(true)}>Add an HTTP tool</button></p>)}
      {list.data.items.length === 0 ? (
        <EmptyState title="No HTTP tools yet">
          {canEdit ? 'An HTTP tool lets a bot call your API: look up an order, book a slot, check stock. Add one, test it here, then turn it on in a bot\'s settings.'
            : 'An admin adds tools that call your company\'s APIs; bots then use them in conversations.'}
        </EmptyState>
      ) : (
        <div class="rows http-tools">{list.data.items.map((t) => <HttpToolRow key={t.id} tool={t} canEdit={canEdit} onChange={list.reload} />)}</div>
      )}
    </>
  );
}

function HttpToolRow({ tool, canEdit, onChange }: { tool: HttpTool; canEdit: boolean; onChange: () => void }) {
  const [mode, setMode] = useState<'view' | 'edit' | 'test'>('view');
  const act = useAction();
  const remove = () => act.run(async () => { await api('DELETE', `/tools/http/${encodeURIComponent(tool.id)}`); onChange(); });
  return (
    <article class="row-card http-tool" data-name={tool.name}>
      <div class="row-head">
        <span class="kind">{tool.method}</span>
        <h2 class="grow"><code>{tool.name}</code>{tool.label && <span class="muted"> · {tool.label}</span>}</h2>
      </div>
      <p class="row-meta" style={{ wordBreak: 'break-all' }}>{tool.url}</p>
      <p style={{ margin: '.35rem 0 0' }}>{tool.description}</p>
      {canEdit && (
        <div class="row-actions">
          <button type="button" class="secondary small" aria-expanded={mode === 'test'} onClick={() => setMode(mode === 'test' ? 'view' : 'test')}>Test</button>
          <button type="button" class="secondary small" aria-expanded={mode === 'edit'} onClick={() => setMode(mode === 'edit' ? 'view' : 'edit')}>Edit</button>
          <ConfirmButton class="secondary danger small" label="Delete" question={`Delete ${tool.name}? Bots using it lose it.`} onConfirm={remove} />
        </div>
      )}
      <ErrorText error={act.error} />
      {mode === 'edit' && <HttpToolForm tool={tool} onSaved={() => { setMode('view'); onChange(); }} onCancel={() => setMode('view')} />}
      {mode === 'test' && <TestRun tool={tool} />}
    </article>
  );
}

/** A template as requested: arguments filled in (URL-encoded in the URL, as the server does), secrets left hidden. */
const filled = (text: string, args: Record<string, unknown>, encode = true) =>
  text.replace(/\{\{\s*args\.([\w-]+)\s*\}\}/g, (_, k: string) => (encode ? encodeURIComponent(String(args[k] ?? '')) : String(args[k] ?? ''))).replace(/\{\{\s*secrets\.[\w-]+\s*\}\}/g, '••••');

/** JSON answers are shown indented; anything else as it came. */
const pretty = (body: string) => { try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; } };

/** The server makes the real request (secrets filled in, then redacted from what comes back). */
function TestRun({ tool }: { tool: HttpTool }) {
  const [args, setArgs] = useState(() => sampleArgs(tool.parameters));
  const [run, setRun] = useState<{ args: Record<string, unknown>; result: HttpTest } | null>(null);
  const act = useAction();
  const submit = () => act.run(async () => {
    const a = parseJson(args, 'Arguments');
    setRun({ args: a, result: await api<HttpTest>('POST', `/tools/http/${encodeURIComponent(tool.id)}/test`, { arguments: a }) });
  });
  const r = run?.result;
  return (
    <Form onSubmit={submit} class="test-run" name="test-http-tool">
      <label class="field"><span>Sample arguments (JSON)</span>
        <textarea name="arguments" rows={4} spellcheck={false} class="mono" value={args} onInput={(e) => setArgs(e.currentTarget.value)} />
      </label>
      <button type="submit" disabled={act.busy}>{act.busy ? 'Calling…' : 'Run test'}</button>
      <ErrorText error={act.error} />
      {run && r && (
        <div class="test-result" aria-live="polite">
          <h3>Request</h3>
          <Code label="Request">{`${tool.method} ${filled(tool.url, run.args)}${Object.entries(tool.headers).map(([h, v]) => `\n${h}: ${filled(v, run.args, false)}`).join('')}\n\narguments ${JSON.stringify(run.args, null, 2)}`}</Code>
          <h3>Response {r.ok ? <Pill tone="good">{`${r.status} in ${r.durationMs} ms`}</Pill> : <Pill tone="bad">{r.status ? `${r.status} in ${r.durationMs} ms` : 'no answer'}</Pill>}</h3>
          {r.error && <p class="error">{r.error.message}</p>}
          {r.body ? <Code label="Response body">{pretty(r.body) + (r.truncated ? '\n… (cut for display)' : '')}</Code> : <p class="muted">The answer had no body.</p>}
        </div>
      )}
    </Form>
  );
}
