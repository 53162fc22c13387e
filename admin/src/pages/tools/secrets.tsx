/** Secrets for tool URLs and headers ({{secrets.NAME}}): names only; a value can be set, replaced or deleted, never read. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { EmptyState } from '../../ui/layout.js';
import { RelativeTime } from '../../ui/time.js';
import { ErrorText, Form, FormErrors, Loading, TextField, useAction, useLoad } from '../../ui.js';
import { ConfirmButton } from '../kit/kit.js';
import type { Secret } from './types.js';

export function SecretsTab() {
  const list = useLoad(() => api<{ items: Secret[] }>('GET', '/secrets'));
  const [replacing, setReplacing] = useState<string | null>(null);
  const act = useAction();
  const remove = (s: Secret) => act.run(async () => { await api('DELETE', `/secrets/${encodeURIComponent(s.id)}`); list.reload(); });
  return (
    <>
      <SetSecret onSaved={list.reload} />
      {!list.data ? <Loading error={list.error} /> : list.data.items.length === 0 ? (
        <EmptyState title="No secrets yet">Store API keys here, then use them in an HTTP tool as <code>{'{{secrets.NAME}}'}</code>. Values are never shown again, to anyone.</EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="list stack secrets">
            <thead><tr><th>Name</th><th>Set</th><th>Changed</th><th><span class="visually-hidden">Actions</span></th></tr></thead>
            <tbody>
              {list.data.items.map((s) => (
                <tr key={s.id}>
                  <td data-label="Name"><code>{s.name}</code></td>
                  <td data-label="Set"><RelativeTime ms={s.createdAt} /></td>
                  <td data-label="Changed"><RelativeTime ms={s.updatedAt} /></td>
                  <td>
                    {replacing === s.name
                      ? <SetSecret name={s.name} onSaved={() => { setReplacing(null); list.reload(); }} onCancel={() => setReplacing(null)} />
                      : <span class="row-actions" style={{ marginTop: 0 }}>
                        <button type="button" class="secondary small" onClick={() => setReplacing(s.name)}>Replace value</button>
                        <ConfirmButton class="secondary danger small" label="Delete" question={`Delete ${s.name}? Tools using it will fail.`} onConfirm={() => remove(s)} />
                      </span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <ErrorText error={act.error} />
    </>
  );
}

/** PUT /secrets/{name}: makes the secret, or replaces its value when the name exists. */
function SetSecret({ name: fixed, onSaved, onCancel }: { name?: string; onSaved: () => void; onCancel?: () => void }) {
  const [name, setName] = useState(fixed ?? '');
  const [value, setValue] = useState('');
  const act = useAction();
  const submit = () => act.run(async () => {
    await api('PUT', `/secrets/${encodeURIComponent(name.trim())}`, { value });
    setValue('');
    if (!fixed) setName('');
    onSaved();
  });
  return (
    <Form onSubmit={submit} class={fixed ? 'inline-form replace-secret' : 'card inline-form set-secret'} name={fixed ? 'replace-secret' : 'set-secret'}>
      {!fixed && <TextField label="Name" name="name" value={name} onInput={setName} required autocomplete="off" errors={act.fields} />}
      <TextField label={fixed ? `New value for ${fixed}` : 'Value'} name="value" type="password" value={value} onInput={setValue} required autocomplete="new-password" errors={act.fields} />
      <button type="submit" disabled={act.busy}>{fixed ? 'Replace' : 'Save secret'}</button>
      {onCancel && <button type="button" class="secondary" onClick={onCancel}>Cancel</button>}
      <FormErrors act={act} shown={['name', 'value']} />
    </Form>
  );
}
