/** #/setup: the first run's first step: create the owner account and the workspace (POST /setup); Get started follows. */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me } from '../types.js';
import { Form, FormErrors, TextField, useAction } from '../ui.js';

export function SetupPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [workspaceName, setWorkspaceName] = useState('');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const submit = () => act.run(async () => onSignedIn(await api<Me>('POST', '/setup', { workspaceName, name, email, password })));
  const f = act.fields;
  return (
    <section class="card narrow auth-card" aria-labelledby="setup-title">
      <div class="auth-mark" aria-hidden="true"><svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/></svg></div>
      <h1 id="setup-title">Welcome! Let's set up this server</h1>
      <p class="muted">First your account (you will be its owner), then a few guided steps: connect an AI provider, create a bot and
        talk to it. About five minutes; this page is shown once.</p>
      <Form onSubmit={submit} name="setup">
        <TextField label="Workspace name" name="workspaceName" value={workspaceName} onInput={setWorkspaceName} required errors={f} hint="Your company or team; shown in the panel." autocomplete="organization" />
        <TextField label="Your name" name="name" value={name} onInput={setName} required autocomplete="name" errors={f} />
        <TextField label="E-mail" name="email" type="email" value={email} onInput={setEmail} required autocomplete="username" errors={f} hint="You sign in with it." />
        <TextField label="Password" name="password" type="password" value={password} onInput={setPassword} required minLength={8} autocomplete="new-password" errors={f} hint="8 characters or more, not a common password: a few unrelated words work well." />
        <FormErrors act={act} shown={['workspaceName', 'name', 'email', 'password']} />
        <button type="submit" class="wide-button" disabled={act.busy}>{act.busy ? 'Creating…' : 'Create workspace and continue'}</button>
      </Form>
    </section>
  );
}
