/**
 * The shell: finds out whether setup is needed and who is signed in, then shows setup, sign-in, an
 * invitation, or the signed-in layout (nav + one page). Signing in opens the live socket; signing out closes it.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, setCsrfToken, whenSignedOut } from './api.js';
import { LiveClient } from './live.js';
import { Nav } from './nav.js';
import { go, parts, useRoute } from './router.js';
import { SessionContext, sessionOf, type Session } from './session.js';
import type { Me } from './types.js';
import { Loading, Toasts } from './ui.js';
import { InvitePage } from './pages/invite.js';
import { LoginPage } from './pages/login.js';
import { SetupPage } from './pages/setup.js';
import { SignedInPage } from './pages/index.js';

type Boot = { kind: 'loading'; error: string | null } | { kind: 'setup' } | { kind: 'signed-out' } | { kind: 'signed-in'; session: Session };

export function App() {
  const route = useRoute();
  const [boot, setBoot] = useState<Boot>({ kind: 'loading', error: null });

  /** `firstRun`: just set up, so the guided path (#/start) comes next. */
  const signIn = (me: Me, firstRun = false) => {
    setCsrfToken(me.csrfToken);
    setBoot((b) => {
      if (b.kind === 'signed-in') b.session.live.stop();
      return { kind: 'signed-in', session: sessionOf(me, new LiveClient()) };
    });
    const at = parts()[0];
    if (firstRun) go('/start');
    // Agents work conversations: they start in the inbox; admins and viewers on the bots.
    else if (at === undefined || at === 'setup' || at === 'login' || at === 'invite') go(me.user.role === 'agent' ? '/inbox' : '/bots');
  };
  const signOut = () => {
    setCsrfToken('');
    setBoot((b) => {
      if (b.kind === 'signed-in') b.session.live.stop();
      return { kind: 'signed-out' };
    });
  };

  useEffect(() => {
    whenSignedOut(signOut);
    (async () => {
      const setup = await api<{ needsSetup: boolean }>('GET', '/setup');
      if (setup.needsSetup) { setBoot({ kind: 'setup' }); return; }
      const me = await api<Me>('GET', '/me').catch(() => null);
      if (me) signIn(me); else setBoot({ kind: 'signed-out' });
    })().catch((e) => setBoot({ kind: 'loading', error: String(e instanceof Error ? e.message : e) }));
  }, []);

  if (boot.kind === 'loading') return <main class="center"><Loading error={boot.error} /></main>;
  // The setup and sign-in screens share one frame: the product's name above a card.
  if (route[0] === 'invite' && route[1]) return <main class="center"><InvitePage token={route[1]} onSignedIn={signIn} /></main>;
  if (boot.kind === 'setup') return <main class="center"><SetupPage onSignedIn={(me) => signIn(me, true)} /></main>;
  if (boot.kind === 'signed-out') return <main class="center"><LoginPage onSignedIn={signIn} /></main>;

  const logout = async () => {
    await api('POST', '/auth/logout').catch(() => {});
    signOut();
    go('/login');
  };
  return (
    <SessionContext.Provider value={boot.session}>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>Skip to content</a>
      <div class="layout">
        <Nav route={route} onLogout={logout} />
        <main class="page" id="main" tabIndex={-1}><SignedInPage route={route} /></main>
      </div>
      <Toasts />
    </SessionContext.Provider>
  );
}
