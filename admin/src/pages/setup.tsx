/** #/setup: the first run: create the owner account and the workspace (POST /setup). */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me } from '../types.js';
import { ErrorText, Field, Form, useAction } from '../ui.js';

export function SetupPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [workspaceName, setWorkspaceName] = useState('');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const submit = () => act.run(async () => onSignedIn(await api<Me>('POST', '/setup', { workspaceName, name, email, password })));
  return (
    <section class="card narrow">
      <h1>Set up this server</h1>
      <p class="muted">Create the workspace and its owner account. This is asked once.</p>
      <Form onSubmit={submit} name="setup">
        <Field label="Workspace name" name="workspaceName" value={workspaceName} onInput={setWorkspaceName} required />
        <Field label="Your name" name="name" value={name} onInput={setName} required autocomplete="name" />
        <Field label="E-mail" name="email" type="email" value={email} onInput={setEmail} required autocomplete="username" />
        <Field label="Password (8 characters or more)" name="password" type="password" value={password} onInput={setPassword} required minLength={8} autocomplete="new-password" />
        <ErrorText error={act.error} />
        <button type="submit" disabled={act.busy}>Create workspace</button>
      </Form>
    </section>
  );
}
