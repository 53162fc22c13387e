/** Picks the signed-in page for the route and loads its area's chunk; unknown routes go to Bots. */
import { useEffect, useState } from 'preact/hooks';
import { go, parts } from '../router.js';
import { areaOf, type AreaPage } from '../routes.js';
import { useSession } from '../session.js';
import { Loading } from '../ui.js';

const loaded = new Map<string, AreaPage>();

export function SignedInPage({ route }: { route: string[] }) {
  const { atLeast, me } = useSession();
  const [path, ...rest] = route;
  const area = areaOf(path);
  // The tab names the page (and the workspace, for people with several open).
  useEffect(() => { document.title = area ? `${area.text} · ${me.workspace.name}` : me.workspace.name; }, [area?.path, me.workspace.name]);
  const [, setTick] = useState(0);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    if (!area || loaded.has(area.path)) return;
    setError(null);
    area.load().then((page) => { loaded.set(area.path, page); setTick((t) => t + 1); },
      () => setError('This page could not be loaded: the server cannot be reached. Check your connection and reload the page.'));
  }, [area?.path]);
  // Old addresses (#/conversations/<id>, #/live) keep working: they are rewritten to their area's. Only the address
  // this page was drawn for is rewritten: the inbox once did it from every redraw, reading the address live, and a
  // redraw landing between a link's hash change and its hashchange event sent the person back to the inbox.
  useEffect(() => {
    if (!area || path === area.path || parts()[0] !== path) return;
    location.replace(`#/${[area.path, ...rest].map(encodeURIComponent).join('/')}`);
  }, [path, area?.path]);
  if (!area || !atLeast(area.minRole)) return <Redirect to="/bots" />;
  const Page = loaded.get(area.path);
  return Page ? <Page rest={rest} /> : <Loading error={error} />;
}

function Redirect({ to }: { to: string }) {
  useEffect(() => { go(to); }, [to]);
  return null;
}
