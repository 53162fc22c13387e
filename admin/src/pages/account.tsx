/**
 * #/account: the signed-in person's own account: who they are in this workspace, and changing their password
 * (POST /me/password), which also signs them out of every other browser. Every role has it.
 */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import { useSession } from '../session.js';
import { Form, OtherErrors, PageHeader, Section, TextField, toast, useAction } from '../ui.js';

export default function AccountPage() {
  const { me } = useSession();
  return (
    <section>
      <PageHeader title="Your account" description={`Signed in to ${me.workspace.name}.`} />
      <Section title="Profile" id="profile" description="Your name and e-mail are shown to your team. An admin can change your role on the Team page.">
        <dl class="facts">
          <dt>Name</dt><dd>{me.user.name}</dd>
          <dt>E-mail</dt><dd>{me.user.email}</dd>
          <dt>Role</dt><dd>{me.user.role}</dd>
        </dl>
      </Section>
      <PasswordForm />
    </section>
  );
}

function PasswordForm() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [again, setAgain] = useState('');
  const [mismatch, setMismatch] = useState<string | undefined>();
  const act = useAction();
  const edit = (set: (v: string) => void) => (v: string) => { set(v); setMismatch(undefined); if (act.error) act.clear(); };
  const save = () => {
    if (next !== again) { setMismatch('The two new passwords differ. Type the same password twice.'); return; }
    void act.run(async () => {
      await api('POST', '/me/password', { currentPassword: current, newPassword: next });
      setCurrent(''); setNext(''); setAgain('');
      toast('Password changed. Every other browser signed in as you was signed out.');
    });
  };
  return (
    <Section title="Password" id="password" description="Changing it signs you out everywhere else (other browsers and devices); this one stays signed in.">
      <Form onSubmit={save} name="password" class="settings-form">
        <TextField label="Current password" name="currentPassword" type="password" autocomplete="current-password" value={current}
          onInput={edit(setCurrent)} required errors={act.fields} />
        <TextField label="New password" name="newPassword" type="password" autocomplete="new-password" value={next} minLength={8}
          onInput={edit(setNext)} required errors={act.fields} hint="At least 8 characters, not a common password: a few unrelated words work well." />
        <TextField label="New password again" name="again" type="password" autocomplete="new-password" value={again}
          onInput={edit(setAgain)} required error={mismatch} />
        <OtherErrors errors={act.fields} shown={['currentPassword', 'newPassword']} />
        {act.error && !Object.keys(act.fields).length && <p class="error" role="alert">{act.error}</p>}
        <button type="submit" disabled={act.busy}>{act.busy ? 'Changing…' : 'Change password'}</button>
      </Form>
    </Section>
  );
}
