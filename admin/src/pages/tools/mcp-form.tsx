/** Connecting or changing an MCP server: over HTTP (URL and headers) or as a program on this server (command, args, environment). */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Form, FormErrors, TextField, useAction } from '../../ui.js';
import { parsePairs, type McpServer } from './types.js';

export function McpForm({ server, onSaved, onCancel }: { server?: McpServer; onSaved: (s: McpServer) => void; onCancel?: () => void }) {
  const [name, setName] = useState(server?.name ?? '');
  const [transport, setTransport] = useState<'http' | 'stdio'>(server?.transport ?? 'http');
  const [url, setUrl] = useState(server?.url ?? '');
  const [headers, setHeaders] = useState('');
  const [command, setCommand] = useState(server?.command ?? '');
  const [args, setArgs] = useState(server?.args.join('\n') ?? '');
  const [env, setEnv] = useState('');
  const act = useAction();
  const submit = () => act.run(async () => {
    const h = parsePairs(headers);
    const e = parsePairs(env, '=');
    const common = transport === 'http' ? { url: url.trim() } : { command: command.trim(), args: args.split('\n').map((a) => a.trim()).filter(Boolean) };
    const saved = server
      // Left empty, the stored headers and environment stay (their values are never shown, so they cannot be edited in place).
      ? await api<McpServer>('PATCH', `/tools/mcp/${encodeURIComponent(server.id)}`, {
        name: name.trim(), ...common,
        ...(transport === 'http' ? (Object.keys(h).length ? { headers: h } : { keepHeaders: true }) : (Object.keys(e).length ? { env: e } : { keepEnv: true })),
      })
      : await api<McpServer>('POST', '/tools/mcp', { name: name.trim(), transport, ...common, ...(transport === 'http' ? { headers: h } : { env: e }) });
    onSaved(saved);
  });
  const kept = server && (transport === 'http' ? server.headerNames : server.envNames);
  return (
    <Form onSubmit={submit} class="card mcp-form" name={server ? 'edit-mcp' : 'add-mcp'}>
      {!server && <h2>Connect an MCP server</h2>}
      <div class="grid2">
        <TextField label="Name" name="name" value={name} onInput={setName} required errors={act.fields} />
        {!server && (
          <label class="field"><span>How to reach it</span>
            <select name="transport" value={transport} onChange={(e) => setTransport(e.currentTarget.value as 'http' | 'stdio')}>
              <option value="http">Over HTTP (a URL)</option>
              <option value="stdio">A program on this server (admins only)</option>
            </select>
          </label>
        )}
      </div>
      {transport === 'http' ? (
        <>
          <TextField label="Server URL" name="url" type="url" value={url} onInput={setUrl} required errors={act.fields} />
          <label class="field"><span>Headers, one per line (Name: value){kept?.length ? `; leave empty to keep ${kept.join(', ')}` : ''}</span>
            <textarea name="headers" rows={2} value={headers} onInput={(e) => setHeaders(e.currentTarget.value)} placeholder="Authorization: Bearer …" />
          </label>
        </>
      ) : (
        <>
          <TextField label="Command" name="command" value={command} onInput={setCommand} required errors={act.fields} />
          <label class="field"><span>Arguments, one per line</span><textarea name="args" rows={2} value={args} onInput={(e) => setArgs(e.currentTarget.value)} /></label>
          <label class="field"><span>Environment, one per line (NAME=value){kept?.length ? `; leave empty to keep ${kept.join(', ')}` : ''}</span>
            <textarea name="env" rows={2} value={env} onInput={(e) => setEnv(e.currentTarget.value)} />
          </label>
        </>
      )}
      <div class="row-actions">
        <button type="submit" disabled={act.busy}>{act.busy ? 'Connecting…' : server ? 'Save changes' : 'Connect'}</button>
        {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      </div>
      <FormErrors act={act} shown={['name', 'transport', 'url', 'command']} />
    </Form>
  );
}
