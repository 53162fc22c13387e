/** The signed-in navigation: the pages, the workspace and person, and sign-out. */
import { AREAS } from './routes.js';
import { useSession } from './session.js';

export function Nav({ route, onLogout }: { route: string[]; onLogout: () => void }) {
  const { me, atLeast } = useSession();
  return (
    <nav class="nav">
      <strong class="brand">{me.workspace.name}</strong>
      <ul>
        {AREAS.filter((a) => atLeast(a.minRole)).map(({ path, text }) => (
          <li key={path}><a href={`#/${path}`} class={route[0] === path ? 'active' : ''}>{text}</a></li>
        ))}
      </ul>
      <div class="me">
        <span>{me.user.name}</span> <small class="muted">{me.user.role}</small>
        <button type="button" class="link" onClick={onLogout}>Sign out</button>
      </div>
    </nav>
  );
}
