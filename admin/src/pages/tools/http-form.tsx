/** Adding or changing an HTTP tool: what the agent sees (name, description, parameters) and the request it makes. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { ErrorText, Field, Form, useAction } from '../../ui.js';
import { pairsText, parseJson, parsePairs, type HttpTool, type Method } from './types.js';

const EXAMPLE_PARAMS = '{\n  "type": "object",\n  "properties": {\n    "orderId": { "type": "string", "description": "The order number" }\n  },\n  "required": ["orderId"]\n}';

export function HttpToolForm({ tool, onSaved, onCancel }: { tool?: HttpTool; onSaved: (t: HttpTool) => void; onCancel?: () => void }) {
  const [name, setName] = useState(tool?.name ?? '');
  const [description, setDescription] = useState(tool?.description ?? '');
  const [label, setLabel] = useState(tool?.label ?? '');
  const [method, setMethod] = useState<Method>(tool?.method ?? 'GET');
  const [url, setUrl] = useState(tool?.url ?? '');
  const [headers, setHeaders] = useState(tool ? pairsText(tool.headers) : '');
  const [bodyMode, setBodyMode] = useState(tool?.bodyMode ?? 'default');
  const [bodyTemplate, setBodyTemplate] = useState(tool?.bodyTemplate ?? '');
  const [params, setParams] = useState(tool ? JSON.stringify(tool.parameters, null, 2) : EXAMPLE_PARAMS);
  const [timeout, setTimeoutMs] = useState(String(tool?.timeoutMs ?? 10000));
  const act = useAction();
  const submit = () => act.run(async () => {
    const body: Record<string, unknown> = {
      name: name.trim(), description: description.trim(), label: label.trim() || null, method, url: url.trim(),
      headers: parsePairs(headers), parameters: parseJson(params, 'Parameters'), timeoutMs: Number(timeout),
      ...(bodyMode !== 'default' ? { bodyMode } : {}), bodyTemplate: bodyMode === 'template' ? bodyTemplate : null,
    };
    const saved = tool ? await api<HttpTool>('PATCH', `/tools/http/${encodeURIComponent(tool.id)}`, body) : await api<HttpTool>('POST', '/tools/http', body);
    onSaved(saved);
  });
  return (
    <Form onSubmit={submit} class="card http-tool-form" name={tool ? 'edit-http-tool' : 'add-http-tool'}>
      {!tool && <h2>Add an HTTP tool</h2>}
      <div class="grid2">
        <Field label="Name the agent calls" name="name" value={name} onInput={setName} required />
        <Field label="Label shown to visitors while it runs (optional)" name="label" value={label} onInput={setLabel} />
      </div>
      <label class="field"><span>When to use it (the agent reads this)</span>
        <textarea name="description" rows={2} required value={description} onInput={(e) => setDescription(e.currentTarget.value)} placeholder="Looks up the status of an order by its number." />
      </label>
      <div class="toolbar">
        <label class="field"><span>Method</span>
          <select name="method" value={method} onChange={(e) => setMethod(e.currentTarget.value as Method)}>
            {['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => <option key={m}>{m}</option>)}
          </select>
        </label>
        <label class="field" style={{ flex: '1 1 18rem' }}><span>URL</span>
          <input name="url" required value={url} onInput={(e) => setUrl(e.currentTarget.value)} placeholder="https://api.example.com/orders/{{args.orderId}}" />
        </label>
      </div>
      <p class="k-hint">Use <code>{'{{args.name}}'}</code> for an argument and <code>{'{{secrets.NAME}}'}</code> for a secret, in the path, query, headers or body; never in the host.</p>
      <label class="field"><span>Headers, one per line (Name: value)</span>
        <textarea name="headers" rows={2} value={headers} onInput={(e) => setHeaders(e.currentTarget.value)} placeholder={'Authorization: Bearer {{secrets.ORDERS_KEY}}'} />
      </label>
      <div class="grid2">
        <label class="field"><span>Body</span>
          <select name="bodyMode" value={bodyMode} onChange={(e) => setBodyMode(e.currentTarget.value as never)}>
            <option value="default">Default (arguments as JSON for POST, PUT, PATCH)</option>
            <option value="none">No body</option>
            <option value="args">The arguments as JSON</option>
            <option value="template">A template</option>
          </select>
        </label>
        <Field label="Timeout (ms, 1000–120000)" name="timeoutMs" type="number" value={timeout} onInput={setTimeoutMs} />
      </div>
      {bodyMode === 'template' && (
        <label class="field"><span>Body template</span><textarea name="bodyTemplate" rows={4} value={bodyTemplate} onInput={(e) => setBodyTemplate(e.currentTarget.value)} /></label>
      )}
      <label class="field"><span>Parameters (JSON schema of the arguments)</span>
        <textarea name="parameters" rows={7} spellcheck={false} class="mono" value={params} onInput={(e) => setParams(e.currentTarget.value)} />
      </label>
      <div class="row-actions">
        <button type="submit" disabled={act.busy}>{tool ? 'Save changes' : 'Add tool'}</button>
        {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      </div>
      <ErrorText error={act.error} />
    </Form>
  );
}
