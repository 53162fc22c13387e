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
      <div class="auth-mark" aria-hidden="true"><svg viewBox="0 0 24 24" width="24" height="24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round"><path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.6A8 8 0 1 1 21 12z"/></svg></div>
      <h1 id="login-title">Sign in</h1>
      <Form onSubmit={submit} name="login">
        <TextField label="E-mail" name="email" type="email" value={email} onInput={setEmail} required autocomplete="username" />
        <TextField label="Password" name="password" type="password" value={password} onInput={setPassword} required autocomplete="current-password" />
        <ErrorText error={act.error} />
        <button type="submit" class="wide-button" disabled={act.busy}>{act.busy ? 'Signing in…' : 'Sign in'}</button>
      </Form>
      <details class="forgot">
        <summary>Forgot your password?</summary>
        <p>Whoever runs the server can set a new one, in the server's folder:</p>
        <pre class="snippet"><code>npm run cli -- reset-password --email {email.trim() || 'you@example.com'}</code></pre>
        <p class="muted">It prints the new password and signs the account out everywhere. They can also make a one-time
          sign-in link instead (<code>signin-link</code>); see "Recovery" in docs/operations.md.</p>
      </details>
    </section>
  );
}
