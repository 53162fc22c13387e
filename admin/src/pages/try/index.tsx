/**
 * #/try/<botId>: talk to a bot in the real widget, framed from the server's chat page (/chat/<botId>): the draft
 * (with a preview token, 30 minutes, renewed here) or the published config, in each layout. Below: the shareable
 * full-page link and the embed snippets. #/try without a bot lists the bots to pick from.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../api.js';
import type { BotSummary, Embed, Page } from '../../types.js';
import { CopyBlock, CopyButton, EmptyState, Loading, PageHeader, Section, useLoad } from '../../ui.js';

const LAYOUTS: Array<[string, string]> = [['inline', 'Full page'], ['floating', 'Floating'], ['panel', 'Side panel'], ['drawer', 'Drawer']];

export default function TryArea({ rest }: { rest: string[] }) {
  return rest[0] ? <TryBot id={rest[0]} /> : <PickBot />;
}

function PickBot() {
  const bots = useLoad(() => api<Page<BotSummary>>('GET', '/bots?limit=200'));
  if (!bots.data) return <Loading error={bots.error} />;
  return (
    <>
      <PageHeader title="Try it" description="Talk to a bot the way visitors will, in the real chat widget." />
      {bots.data.items.length === 0
        ? <EmptyState title="No bots yet" icon="✉" action={<a class="button" href="#/start">Set up your first bot</a>}>Create a bot first; the guided set-up connects a provider, picks a model and creates one in a few steps.</EmptyState>
        : <ul class="grid">{bots.data.items.map((b) => (
            <li class="tile" key={b.id}><h3>{b.name}</h3><span class="muted">{b.publishedVersion ? `Published v${b.publishedVersion}` : 'Draft only'}</span>
              <div class="tile-foot"><a class="button secondary small" href={`#/try/${b.id}`}>Try {b.name}</a></div></li>))}</ul>}
    </>
  );
}

function TryBot({ id }: { id: string }) {
  const bot = useLoad(() => api<BotSummary>('GET', `/bots/${id}`), [id]);
  const [mode, setMode] = useState<'draft' | 'published' | null>(null);
  const [layout, setLayout] = useState('inline');
  const [token, setToken] = useState<{ token: string; expiresAt: number } | null>(null);
  const [tokenError, setTokenError] = useState<string | null>(null);
  const [run, setRun] = useState(0);
  const published = !!bot.data?.publishedVersion;
  const shown = mode ?? (published ? 'published' : 'draft');
  useEffect(() => {
    if (shown !== 'draft' || !bot.data) return;
    // A fresh token per start: it lasts 30 minutes, and a new one also starts a new preview conversation.
    api<{ token: string; expiresAt: number }>('POST', `/bots/${id}/preview`).then(setToken, (e) => setTokenError(e.message));
  }, [shown, id, run, !!bot.data]);
  if (!bot.data) return <Loading error={bot.error} />;
  const b = bot.data;
  const src = shown === 'published' ? `/chat/${encodeURIComponent(id)}?layout=${layout}` : token ? `/chat/${encodeURIComponent(id)}?layout=${layout}#preview=${encodeURIComponent(token.token)}` : null;
  const link = `${location.origin}/chat/${encodeURIComponent(id)}`;
  return (
    <>
      <PageHeader back={{ href: '#/try', text: 'Try it' }} title={`Try ${b.name}`}
        description={shown === 'draft' ? 'The draft: your latest changes, not yet what visitors see. Conversations here are real (stored and counted).' : `The published version (v${b.publishedVersion}): what visitors see.`}
        actions={<a class="button secondary" href={`#/bots/${id}`}>Bot settings</a>} />
      <div class="try-controls row" role="group" aria-label="What to try">
        <div class="segmented" role="radiogroup" aria-label="Version">
          <button type="button" role="radio" aria-checked={shown === 'draft'} class={shown === 'draft' ? '' : 'secondary'} onClick={() => setMode('draft')}>Draft</button>
          <button type="button" role="radio" aria-checked={shown === 'published'} class={shown === 'published' ? '' : 'secondary'} disabled={!published}
            title={published ? undefined : 'Publish the bot first'} onClick={() => setMode('published')}>Published</button>
        </div>
        <label class="inline-label">Layout{' '}
          <select name="layout" value={layout} onChange={(e) => setLayout(e.currentTarget.value)}>
            {LAYOUTS.map(([v, t]) => <option key={v} value={v}>{t}</option>)}
          </select>
        </label>
        <button type="button" class="secondary" onClick={() => setRun((n) => n + 1)}>Reload the chat</button>
      </div>
      {!published && <p class="notice warn">Not published yet: visitors cannot chat with it. Publish it in the bot's settings to get the shareable link and embed it.</p>}
      {b.status === 'paused' && <p class="notice warn">This bot is paused: the widget shows its offline text (and the lead form, if lead capture is on) until you resume it.</p>}
      {src ? <iframe key={`${src}|${run}`} class="try-frame" title={`Chat with ${b.name}`} src={src} allow="microphone; camera; autoplay; clipboard-write" />
        : <Loading error={tokenError} text="Preparing the preview…" />}
      {published && (
        <Section title="Share a chat link" id="share" description="A full-page chat with the published bot. Anyone with the link can chat (the bot's allowed sites and limits apply as for any embed).">
          <div class="row"><code class="link-box">{link}</code><CopyButton text={link} label="Copy link" /><a class="button secondary small" href={link} target="_blank" rel="noopener">Open</a></div>
        </Section>
      )}
      <EmbedSnippets id={id} />
    </>
  );
}

export function EmbedSnippets({ id }: { id: string }) {
  const embed = useLoad(() => api<Embed>('GET', `/bots/${id}/embed`), [id]);
  if (!embed.data) return <Loading error={embed.error} />;
  const entries = Object.entries(embed.data.snippets);
  return (
    <Section title="Put it on your website" id="embed" description={<>Paste this before <code>&lt;/body&gt;</code> on every page where the chat should appear.{embed.data.published ? '' : ' It shows the chat once the bot is published.'}</>}>
      {entries.map(([name, text], i) => (
        <details key={name} open={i === 0}>
          <summary>{name === 'basic' || i === 0 ? `${cap(name)} (recommended)` : cap(name)}</summary>
          <CopyBlock text={text} label="Copy snippet" title={`${name} snippet`} />
        </details>
      ))}
    </Section>
  );
}
const cap = (s: string) => s.slice(0, 1).toUpperCase() + s.slice(1);
