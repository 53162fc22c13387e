/** #/login: sign in with e-mail and password (POST /auth/login). */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me } from '../types.js';
import { ErrorText, Field, Form, useAction } from '../ui.js';

export function LoginPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const submit = () => act.run(async () => onSignedIn(await api<Me>('POST', '/auth/login', { email, password })));
  return (
    <section class="card narrow">
      <h1>Sign in</h1>
      <Form onSubmit={submit} name="login">
        <Field label="E-mail" name="email" type="email" value={email} onInput={setEmail} required autocomplete="username" />
        <Field label="Password" name="password" type="password" value={password} onInput={setPassword} required autocomplete="current-password" />
        <ErrorText error={act.error} />
        <button type="submit" disabled={act.busy}>Sign in</button>
      </Form>
    </section>
  );
}
