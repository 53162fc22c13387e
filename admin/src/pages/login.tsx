/** #/login: sign in with e-mail and password (POST /auth/login). */
import { useState } from 'preact/hooks';
import { api } from '../api.js';
import type { Me } from '../types.js';
import { ErrorText, Form, TextField, useAction } from '../ui.js';

export function LoginPage({ onSignedIn }: { onSignedIn: (me: Me) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const act = useAction();
  const submit = () => act.run(async () => onSignedIn(await api<Me>('POST', '/auth/login', { email, password })));
  return (
    <section class="card narrow auth-card" aria-labelledby="login-title">
      <div class="auth-mark" aria-hidden="true">💬</div>
      <h1 id="login-title">Sign in</h1>
      <Form onSubmit={submit} name="login">
        <TextField label="E-mail" name="email" type="email" value={email} onInput={setEmail} required autocomplete="username" />
        <TextField label="Password" name="password" type="password" value={password} onInput={setPassword} required autocomplete="current-password" />
        <ErrorText error={act.error} />
        <button type="submit" class="wide-button" disabled={act.busy}>{act.busy ? 'Signing in…' : 'Sign in'}</button>
      </Form>
    </section>
  );
}
