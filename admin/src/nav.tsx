/**
 * The signed-in navigation: areas grouped under headings (routes.ts `group`), the workspace and person, and
 * sign-out. Below 800 px it folds into a top bar with a Menu button (aria-expanded) that opens it over the page.
 */
import { useEffect, useState } from 'preact/hooks';
import { AREAS, type Area } from './routes.js';
import { useSession } from './session.js';

const GROUPS: Array<Area['group']> = ['Chat', 'Build', 'Workspace'];

export function Nav({ route, onLogout }: { route: string[]; onLogout: () => void }) {
  const { me, atLeast } = useSession();
  const [open, setOpen] = useState(false);
  useEffect(() => { setOpen(false); }, [route.join('/')]);
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => { if (e.key === 'Escape') { setOpen(false); document.getElementById('menu-button')?.focus(); } };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [open]);
  const areas = AREAS.filter((a) => atLeast(a.minRole));
  const initials = me.user.name.split(/\s+/).map((w) => w[0]).join('').slice(0, 2).toUpperCase();
  return (
    <>
      <header class="topbar">
        <button type="button" id="menu-button" class="secondary menu-button" aria-expanded={open} aria-controls="side-nav" onClick={() => setOpen((o) => !o)}>
          <span aria-hidden="true">☰</span> Menu
        </button>
        <span class="brand">{me.workspace.name}</span>
      </header>
      <nav id="side-nav" class={`nav${open ? ' open' : ''}`} aria-label="Main">
        <div class="brand-row">
          <span class="logo" aria-hidden="true">{me.workspace.name.slice(0, 1).toUpperCase()}</span>
          <strong class="brand">{me.workspace.name}</strong>
          {open && <button type="button" class="icon nav-close" aria-label="Close menu" onClick={() => { setOpen(false); document.getElementById('menu-button')?.focus(); }}>×</button>}
        </div>
        {GROUPS.map((g) => {
          const list = areas.filter((a) => a.group === g);
          if (!list.length) return null;
          return (
            <div class="nav-group" key={g}>
              <h2 class="nav-heading" id={`nav-${g}`}>{g}</h2>
              <ul aria-labelledby={`nav-${g}`}>
                {list.map(({ path, text }) => (
                  <li key={path}>
                    <a href={`#/${path}`} class={route[0] === path ? 'active' : ''} aria-current={route[0] === path ? 'page' : undefined}>{text}</a>
                  </li>
                ))}
              </ul>
            </div>
          );
        })}
        <div class="me">
          <div class="avatar" aria-hidden="true">{initials}</div>
          <div class="me-text"><span class="me-name">{me.user.name}</span><small class="muted">{me.user.role}</small></div>
          <button type="button" class="link" onClick={onLogout}>Sign out</button>
        </div>
      </nav>
      {open && <div class="scrim" onClick={() => setOpen(false)} aria-hidden="true" />}
    </>
  );
}
