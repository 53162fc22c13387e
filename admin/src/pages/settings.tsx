/**
 * #/settings: the workspace's settings (GET/PATCH /settings): name, default language and time zone for new bots
 * and analytics days, how long conversations are kept, and which e-mail domains invitations may go to.
 * Admins change them; everyone else reads them. The owner can also delete the workspace (delete-workspace.tsx).
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import { Form, Loading, OtherErrors, PageHeader, SelectField, TextField, toast, useAction, useLoad } from '../ui.js';
import { DeleteWorkspace } from './delete-workspace.js';

interface Settings { name: string; defaultLanguage: string; timezone: string; conversationRetentionDays: number | null; allowedEmailDomains: string[] }

const zones = (): string[] => {
  try { return (Intl as any).supportedValuesOf('timeZone') as string[]; } catch { return ['UTC']; }
};

export default function SettingsPage() {
  const { atLeast } = useSession();
  const loaded = useLoad(() => api<Settings>('GET', '/settings'));
  const canEdit = atLeast('admin');
  return (
    <section>
      <PageHeader title="Workspace settings" description={canEdit ? 'What applies across the workspace. Changes apply at once.' : 'What applies across the workspace. Only admins can change these.'} />
      {!loaded.data ? <Loading error={loaded.error} /> : <SettingsForm initial={loaded.data} canEdit={canEdit} onSaved={loaded.setData} />}
      <DeleteWorkspace />
    </section>
  );
}

function SettingsForm({ initial, canEdit, onSaved }: { initial: Settings; canEdit: boolean; onSaved: (s: Settings) => void }) {
  const [name, setName] = useState(initial.name);
  const [language, setLanguage] = useState(initial.defaultLanguage);
  const [timezone, setTimezone] = useState(initial.timezone);
  const [keep, setKeep] = useState(initial.conversationRetentionDays === null ? '' : String(initial.conversationRetentionDays));
  const [domains, setDomains] = useState(initial.allowedEmailDomains.join(', '));
  useEffect(() => { setName(initial.name); }, [initial.name]);
  const act = useAction();
  // An error shown at a field goes once the field is edited again.
  const edit = <T,>(set: (v: T) => void) => (v: T) => { set(v); if (act.error) act.clear(); };
  const zoneList = zones();
  const zoneOptions: Array<[string, string]> = (zoneList.includes(timezone) ? zoneList : [timezone, ...zoneList]).map((z) => [z, z.replace(/_/g, ' ')]);
  const save = () => act.run(async () => {
    const days = keep.trim() === '' ? null : Number(keep);
    const body = {
      name, defaultLanguage: language.trim(), timezone, conversationRetentionDays: days,
      allowedEmailDomains: domains.split(/[\s,]+/).map((d) => d.trim()).filter(Boolean),
    };
    onSaved(await api<Settings>('PATCH', '/settings', body));
    toast('Settings saved');
  });
  const shown = ['name', 'defaultLanguage', 'timezone', 'conversationRetentionDays', 'allowedEmailDomains'];
  return (
    <Form onSubmit={save} class="card settings-form" name="settings">
      <fieldset disabled={!canEdit} class="plain">
        <TextField label="Workspace name" name="name" value={name} onInput={edit(setName)} required maxLength={100} errors={act.fields}
          hint="Shown in the panel and on invitation pages." />
        <TextField label="Default language" name="defaultLanguage" value={language} onInput={edit(setLanguage)} required maxLength={35} errors={act.fields}
          hint="A language tag such as en, de or pt-BR. New bots start in this language." />
        <SelectField label="Time zone" name="timezone" value={timezone} options={zoneOptions} onChange={edit(setTimezone)} errors={act.fields}
          hint="Analytics count days in this zone; new bots use it for opening hours." />
        <TextField label="Keep conversations for (days)" name="conversationRetentionDays" type="number" value={keep} onInput={edit(setKeep)} errors={act.fields}
          hint="Conversations whose last message is older are deleted with their images. Leave empty to keep them." />
        <TextField label="Invitations only to these e-mail domains" name="allowedEmailDomains" value={domains} onInput={edit(setDomains)} errors={act.fields}
          placeholder="example.com, example.org" hint="Separate with commas. Leave empty to allow any address." />
      </fieldset>
      <OtherErrors errors={act.fields} shown={shown} />
      {act.error && !Object.keys(act.fields).length && <p class="error" role="alert">{act.error}</p>}
      {canEdit && <button type="submit" disabled={act.busy}>{act.busy ? 'Saving…' : 'Save settings'}</button>}
    </Form>
  );
}
