/** MCP servers: their tools (destructive ones marked), refresh, a test call of one tool, edit, remove. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { useSession } from '../../session.js';
import { EmptyState } from '../../ui/layout.js';
import { RelativeTime } from '../../ui/time.js';
import { ErrorText, Form, Loading, useAction, useLoad } from '../../ui.js';
import { Code, ConfirmButton, Pill } from '../kit/kit.js';
import { McpForm } from './mcp-form.js';
import { parseJson, sampleArgs, type McpServer, type McpTest } from './types.js';

export function McpTab() {
  const { atLeast } = useSession();
  const canEdit = atLeast('admin');
  const list = useLoad(() => api<{ items: McpServer[] }>('GET', '/tools/mcp'));
  const [adding, setAdding] = useState(false);
  if (!list.data) return <Loading error={list.error} />;
  return (
    <>
      {canEdit && (adding
        ? <McpForm onSaved={() => { setAdding(false); list.reload(); }} onCancel={() => setAdding(false)} />
        : <p><button type="button" onClick={() => setAdding(true)}>Connect an MCP server</button></p>)}
      {list.data.items.length === 0 ? (
        <EmptyState title="No MCP servers yet">
          {canEdit ? 'Connect a Model Context Protocol server to give bots its tools (a CRM, a calendar, your own service). Its tools are listed as soon as it connects.'
            : 'An admin connects MCP servers; their tools then appear here.'}
        </EmptyState>
      ) : (
        <div class="rows mcp-servers">{list.data.items.map((s) => <McpRow key={s.id} s={s} canEdit={canEdit} onChange={list.reload} />)}</div>
      )}
    </>
  );
}

function McpRow({ s: initial, canEdit, onChange }: { s: McpServer; canEdit: boolean; onChange: () => void }) {
  const [s, setS] = useState(initial);
  const [mode, setMode] = useState<'view' | 'edit' | 'test'>('view');
  const [note, setNote] = useState<string | null>(null);
  const act = useAction();
  const refresh = () => act.run(async () => {
    const next = await api<McpServer>('POST', `/tools/mcp/${encodeURIComponent(s.id)}/refresh`);
    setS(next);
    setNote(`Found ${next.tools.length} ${next.tools.length === 1 ? 'tool' : 'tools'}.`);
  });
  const remove = () => act.run(async () => { await api('DELETE', `/tools/mcp/${encodeURIComponent(s.id)}`); onChange(); });
  return (
    <article class="row-card mcp-server" data-name={s.name}>
      <div class="row-head">
        <span class="kind">{s.transport === 'http' ? 'HTTP' : 'Program'}</span>
        <h2 class="grow">{s.name}</h2>
        {s.lastError ? <Pill tone="bad">Unreachable</Pill> : <Pill tone="good">Connected</Pill>}
      </div>
      <p class="row-meta" style={{ wordBreak: 'break-all' }}>
        <span>{s.url ?? [s.command, ...s.args].join(' ')}</span>
        {(s.headerNames.length > 0 || s.envNames.length > 0) && <span>with {[...s.headerNames, ...s.envNames].join(', ')}</span>}
        <span>tools listed <RelativeTime ms={s.toolsUpdatedAt} /></span>
      </p>
      {s.lastError && <p class="error">{s.lastError}</p>}
      {s.tools.length === 0 ? <p class="muted">This server offers no tools. Refresh after adding some to it.</p> : (
        <ul class="mcp-tools" style={{ listStyle: 'none', padding: 0, margin: '.5rem 0 0' }}>
          {s.tools.map((t) => (
            <li key={t.name} class="result mcp-tool" data-tool={t.name}>
              <code>{t.name}</code>{t.title && <span class="muted"> · {t.title}</span>}
              {t.destructive && <> <span class="badge-warn" title="The server marks this tool as destructive; bots ask the visitor before running it unless a bot turns that off">destructive: asks the visitor first</span></>}
              <div class="muted"><small>{t.description}</small></div>
            </li>
          ))}
        </ul>
      )}
      {canEdit && (
        <div class="row-actions">
          <button type="button" class="secondary small" disabled={act.busy} onClick={refresh}>Refresh tools</button>
          <button type="button" class="secondary small" aria-expanded={mode === 'test'} disabled={s.tools.length === 0} onClick={() => setMode(mode === 'test' ? 'view' : 'test')}>Test a tool</button>
          <button type="button" class="secondary small" aria-expanded={mode === 'edit'} onClick={() => setMode(mode === 'edit' ? 'view' : 'edit')}>Edit</button>
          <ConfirmButton class="secondary danger small" label="Remove" question={`Remove ${s.name}? Bots using it lose its tools.`} onConfirm={remove} />
          {note && <span class="ok" role="status">{note}</span>}
        </div>
      )}
      <ErrorText error={act.error} />
      {mode === 'edit' && <McpForm server={s} onSaved={(next) => { setS(next); setMode('view'); }} onCancel={() => setMode('view')} />}
      {mode === 'test' && <McpTestRun s={s} />}
    </article>
  );
}

function McpTestRun({ s }: { s: McpServer }) {
  const [tool, setTool] = useState(s.tools[0]?.name ?? '');
  const schema = s.tools.find((t) => t.name === tool)?.inputSchema ?? {};
  const [args, setArgs] = useState(() => sampleArgs(schema));
  const [result, setResult] = useState<McpTest | null>(null);
  const act = useAction();
  const destructive = s.tools.find((t) => t.name === tool)?.destructive;
  const submit = () => act.run(async () => {
    setResult(await api<McpTest>('POST', `/tools/mcp/${encodeURIComponent(s.id)}/test`, { tool, arguments: parseJson(args, 'Arguments') }));
  });
  return (
    <Form onSubmit={submit} class="test-run" name="test-mcp-tool">
      <label class="field"><span>Tool</span>
        <select name="tool" value={tool} onChange={(e) => { const t = e.currentTarget.value; setTool(t); setArgs(sampleArgs(s.tools.find((x) => x.name === t)?.inputSchema ?? {})); setResult(null); }}>
          {s.tools.map((t) => <option key={t.name} value={t.name}>{t.name}</option>)}
        </select>
      </label>
      <label class="field"><span>Arguments (JSON)</span>
        <textarea name="arguments" rows={3} spellcheck={false} class="mono" value={args} onInput={(e) => setArgs(e.currentTarget.value)} />
      </label>
      {destructive && <p class="badge-warn" style={{ display: 'inline-block' }}>This tool is marked destructive: the test really runs it.</p>}
      <div><button type="submit" disabled={act.busy}>{act.busy ? 'Calling…' : 'Run test'}</button></div>
      <ErrorText error={act.error} />
      {result && (
        <div class="test-result" aria-live="polite">
          <h3>Result {result.ok && !result.isError ? <Pill tone="good">{`ok in ${result.durationMs} ms`}</Pill> : <Pill tone="bad">{result.isError ? 'the tool reported an error' : 'failed'}</Pill>}</h3>
          {result.error && <p class="error">{result.error.message}</p>}
          {result.content && <Code label="Tool result">{result.content}</Code>}
        </div>
      )}
    </Form>
  );
}
