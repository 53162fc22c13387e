/** #/invite/<token>: what the invitation is for (GET /invites/{token}), then join (POST .../accept). */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me, Role } from '../types.js';
import { Form, FormErrors, Loading, TextField, useAction, useLoad, when } from '../ui.js';

interface InviteInfo { workspace: { name: string }; email: string; role: Role; expiresAt: number }

export function InvitePage({ token, onSignedIn }: { token: string; onSignedIn: (me: Me) => void }) {
  const info = useLoad(() => api<InviteInfo>('GET', `/invites/${encodeURIComponent(token)}`), [token]);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const submit = () => act.run(async () => onSignedIn(await api<Me>('POST', `/invites/${encodeURIComponent(token)}/accept`, { name, password })));
  if (!info.data) return <section class="card narrow"><h1>Invitation</h1><Loading error={info.error} /></section>;
  const i = info.data;
  return (
    <section class="card narrow">
      <h1>Join {i.workspace.name}</h1>
      <p class="invite-for">You are invited as <b>{i.role}</b> with the e-mail <b>{i.email}</b>. The invitation is valid until {when(i.expiresAt)}.</p>
      <Form onSubmit={submit} name="accept">
        <TextField label="Your name" name="name" value={name} onInput={setName} required autocomplete="name" errors={act.fields} />
        <TextField label="Choose a password (8 characters or more, not a common one)" name="password" type="password" value={password} onInput={setPassword} required minLength={8} autocomplete="new-password" errors={act.fields} />
        <FormErrors act={act} shown={['name', 'password']} />
        <button type="submit" disabled={act.busy}>Join</button>
      </Form>
    </section>
  );
}
