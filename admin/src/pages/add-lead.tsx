/**
 * Leads → Add lead (POST /leads): someone who called or wrote outside the chat, entered by hand. The form asks
 * for the chosen bot's own lead fields (its published config, else its draft: what the API checks against).
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { BotSummary, Lead } from '../types.js';
import { Form, Loading, Modal, OtherErrors, SelectField, TextArea, TextField, toast, useAction, useLoad } from '../ui.js';

interface LeadField { key: string; label: string; type: string; required: boolean; options?: string[] }
interface BotConfigs { draft: any; published: { config: any } | null }

const INPUT: Record<string, string> = { email: 'email', tel: 'tel' };

export function AddLead({ bots, onAdded, onClose }: { bots: BotSummary[]; onAdded: (l: Lead) => void; onClose: () => void }) {
  const [botId, setBotId] = useState(bots[0]?.id ?? '');
  const [values, setValues] = useState<Record<string, string>>({});
  const bot = useLoad(() => api<BotConfigs>('GET', `/bots/${encodeURIComponent(botId)}`), [botId]);
  const fields: LeadField[] = (bot.data?.published?.config ?? bot.data?.draft)?.behavior?.leadCapture?.fields ?? [];
  const act = useAction();
  const set = (k: string) => (v: string) => { setValues((o) => ({ ...o, [k]: v })); if (act.error) act.clear(); };
  const save = () => act.run(async () => {
    const sent = Object.fromEntries(fields.map((f) => [f.key, values[f.key] ?? '']).filter(([, v]) => v.trim()));
    const lead = await api<Lead>('POST', '/leads', { botId, fields: sent });
    toast('Lead added');
    onAdded(lead);
  });
  return (
    <Modal title="Add a lead" onClose={onClose}>
      <Form onSubmit={save} name="add-lead">
        <p class="muted">For someone who got in touch outside the chat. The fields are the chosen bot's lead form.</p>
        {bots.length > 1 && <SelectField label="Bot" name="botId" value={botId} onChange={(v) => { setBotId(v); setValues({}); act.clear(); }}
          options={bots.map((b) => [b.id, b.name])} />}
        {!bot.data ? <Loading error={bot.error} /> : fields.map((f) => {
          const common = { label: f.label, name: `fields.${f.key}`, value: values[f.key] ?? '', onInput: set(f.key), required: f.required, errors: act.fields };
          if (f.type === 'textarea') return <TextArea key={f.key} {...common} rows={3} />;
          if (f.type === 'select' && f.options?.length) {
            return <SelectField key={f.key} {...common} onChange={set(f.key)} options={[['', 'Choose…'], ...f.options.map((o): [string, string] => [o, o])]} />;
          }
          return <TextField key={f.key} {...common} type={INPUT[f.type] ?? 'text'} />;
        })}
        <OtherErrors errors={act.fields} shown={fields.map((f) => `fields.${f.key}`)} />
        {act.error && !Object.keys(act.fields).length && <p class="error" role="alert">{act.error}</p>}
        <div class="dialog-actions">
          <button type="button" class="secondary" onClick={onClose}>Cancel</button>
          <button type="submit" disabled={act.busy || !bot.data}>{act.busy ? 'Adding…' : 'Add lead'}</button>
        </div>
      </Form>
    </Modal>
  );
}
