/**
 * #/providers: connected providers (name, kind, key hint), connecting a new one from the catalog, and
 * #/providers/<id>: one connection (rename, replace key, test, models, voices). Admins change; others read.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { go } from '../../router.js';
import { useSession } from '../../session.js';
import { EmptyState, Loading, PageHeader, RelativeTime, useLoad } from '../../ui.js';
import { Catalog, ConnectForm } from './connect.js';
import { ConnectionPage } from './detail.js';
import { BLURB, type CatalogEntry, type Connection } from './model.js';

export default function ProvidersArea({ rest }: { rest: string[] }) {
  return rest[0] ? <ConnectionPage id={rest[0]} /> : <ProvidersPage />;
}

function ProvidersPage() {
  const { atLeast } = useSession();
  const admin = atLeast('admin');
  const list = useLoad(() => api<{ items: Connection[] }>('GET', '/providers'));
  const [adding, setAdding] = useState(false);
  const [entry, setEntry] = useState<CatalogEntry | null>(null);
  const connected = (c: Connection) => go(`/providers/${c.id}`);
  const items = list.data?.items ?? [];
  return (
    <>
      <PageHeader title="Providers" description="The AI services your bots use to think, speak and listen. Keys are checked before they are saved and are never shown again."
        actions={admin && items.length > 0 && !adding ? <button type="button" onClick={() => setAdding(true)}>Connect a provider</button> : undefined} />
      {!list.data ? <Loading error={list.error} /> : (
        <>
          {items.length === 0 && !admin && <EmptyState title="No providers connected" icon="⚙">An admin of this workspace connects a provider (OpenAI, Gemini or your own server) before bots can answer.</EmptyState>}
          {items.length > 0 && (
            <table class="list">
              <thead><tr><th scope="col">Name</th><th scope="col">Service</th><th scope="col">Key</th><th scope="col">Connected</th></tr></thead>
              <tbody>
                {items.map((c) => (
                  <tr key={c.id}>
                    <td><a href={`#/providers/${c.id}`}>{c.name}</a></td>
                    <td>{serviceName(c)} <span class="badge">kind {c.letter}</span></td>
                    <td><code>{c.keyHint}</code></td>
                    <td><RelativeTime ms={c.createdAt} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {admin && (items.length === 0 || adding) && (
            <section aria-labelledby="catalog-title">
              <h2 id="catalog-title">{items.length ? 'Connect another provider' : 'Connect your first provider'}</h2>
              {items.length === 0 && <p class="muted">Bots need one to reply. Pick a service; you will paste its API key next.</p>}
              <Catalog picked={entry?.kind ?? null} onPick={setEntry} />
              {entry && <ConnectForm key={entry.kind} entry={entry} onConnected={connected} onCancel={() => { setEntry(null); setAdding(false); }} />}
            </section>
          )}
        </>
      )}
    </>
  );
}

export function serviceName(c: Pick<Connection, 'kind'>): string {
  return { openai: 'OpenAI', gemini: 'Google Gemini', openai_compatible: 'OpenAI-compatible', speech: 'Speech (ElevenLabs API)' }[c.kind];
}
export { BLURB };
