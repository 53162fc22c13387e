/** Adding or changing an HTTP tool: what the agent sees (name, description, parameters) and the request it makes. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { Form, FormErrors, SelectField, TextArea, TextField, useAction } from '../../ui.js';
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
        <TextField label="Name the agent calls" name="name" value={name} onInput={setName} required errors={act.fields} />
        <TextField label="Label shown to visitors while it runs (optional)" name="label" value={label} onInput={setLabel} errors={act.fields} />
      </div>
      <TextArea label="When to use it (the agent reads this)" name="description" rows={2} required value={description} onInput={setDescription} errors={act.fields}
        placeholder="Looks up the status of an order by its number." />
      <div class="toolbar">
        <SelectField label="Method" name="method" value={method} onChange={(v) => setMethod(v as Method)} errors={act.fields}
          options={['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => [m, m])} />
        <div class="grow-field">
          <TextField label="URL" name="url" required value={url} onInput={setUrl} errors={act.fields} placeholder="https://api.example.com/orders/{{args.orderId}}" />
        </div>
      </div>
      <p class="k-hint">Use <code>{'{{args.name}}'}</code> for an argument and <code>{'{{secrets.NAME}}'}</code> for a secret, in the path, query, headers or body; never in the host.</p>
      <TextArea label="Headers, one per line (Name: value)" name="headers" rows={2} value={headers} onInput={setHeaders} errors={act.fields} placeholder={'Authorization: Bearer {{secrets.ORDERS_KEY}}'} />
      <div class="grid2">
        <SelectField label="Body" name="bodyMode" value={bodyMode} onChange={(v) => setBodyMode(v as never)} errors={act.fields}
          options={[['default', 'Default (arguments as JSON for POST, PUT, PATCH)'], ['none', 'No body'], ['args', 'The arguments as JSON'], ['template', 'A template']]} />
        <TextField label="Timeout (ms, 1000–120000)" name="timeoutMs" type="number" value={timeout} onInput={setTimeoutMs} errors={act.fields} />
      </div>
      {bodyMode === 'template' && (
        <TextArea label="Body template" name="bodyTemplate" rows={4} value={bodyTemplate} onInput={setBodyTemplate} errors={act.fields} />
      )}
      <label class="field"><span>Parameters (JSON schema of the arguments)</span>
        <textarea name="parameters" rows={7} spellcheck={false} class="mono" value={params} onInput={(e) => setParams(e.currentTarget.value)} />
      </label>
      <div class="row-actions">
        <button type="submit" disabled={act.busy}>{tool ? 'Save changes' : 'Add tool'}</button>
        {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      </div>
      <FormErrors act={act} shown={['name', 'label', 'description', 'method', 'url', 'headers', 'bodyMode', 'timeoutMs', 'bodyTemplate', 'parameters']} />
    </Form>
  );
}
