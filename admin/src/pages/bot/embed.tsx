/** The embed snippets for the bot's layout and the others, each with a copy button. */
import { api } from '../../api.js';
import { CopyBlock, Loading, useLoad } from '../../ui.js';
import type { Embed } from '../../types.js';

export function EmbedTab({ botId, version }: { botId: string; version: number | null }) {
  const embed = useLoad(() => api<Embed>('GET', `/bots/${encodeURIComponent(botId)}/embed`), [botId, version]);
  if (!embed.data) return <Loading error={embed.error} />;
  const e = embed.data;
  return (
    <section class="embed" aria-labelledby="embed-title">
      <h2 id="embed-title">Embed on a website</h2>
      {!e.published && <p class="warn" role="note">Publish the bot first: websites show only published bots.</p>}
      <p>Paste this before <code>&lt;/body&gt;</code> on every page that should show the chat ({e.layout} layout):</p>
      <CopyBlock text={e.snippets[e.layout]} title={`Embed snippet, ${e.layout} layout`} label="Copy snippet" />
      <h3>Other layouts</h3>
      {Object.entries(e.snippets).filter(([l]) => l !== e.layout).map(([l, s]) => (
        <div key={l} class="snippet-other"><h4>{l}</h4><CopyBlock text={s} title={`Embed snippet, ${l} layout`} label={`Copy ${l} snippet`} /></div>
      ))}
    </section>
  );
}
