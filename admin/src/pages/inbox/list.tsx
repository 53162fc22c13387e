/**
 * The inbox's left pane: presence and alerts, the handoff queue (visitors waiting for a person, oldest first,
 * each with its wait and a Take over button), the filters with their counts, the bot picker, and the list.
 */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { go } from '../../router.js';
import { useSession } from '../../session.js';
import type { BotSummary } from '../../types.js';
import { EmptyState, ErrorText, Loading, RelativeTime, toast, useAction } from '../../ui.js';
import { askToNotify, notifyState, setSound, soundOn } from './alerts.js';
import { visitorName } from './index.js';
import { FILTERS, matches, type Filter, type InboxModel } from './model.js';
import type { Conv } from './types.js';
import { plainText } from '../../../../widget/src/chat/markdown-render.js';

const FILTER_KEY = 'inbox.filter';

export function ListPane({ model, bots, selected, botName }: { model: InboxModel; bots: BotSummary[]; selected: string | null; botName: (id: string) => string }) {
  const { me } = useSession();
  const [filter, setFilterState] = useState<Filter>(() => (sessionStorage.getItem(FILTER_KEY) as Filter | null) ?? 'open');
  const [botId, setBotId] = useState('');
  const setFilter = (f: Filter) => { setFilterState(f); sessionStorage.setItem(FILTER_KEY, f); };
  const all = model.list();
  const shown = all.filter((c) => matches(c, filter, me.user.id, botId));
  const count = (f: Filter) => all.filter((c) => matches(c, f, me.user.id, botId)).length;
  const waiting = all.filter((c) => matches(c, 'waiting', me.user.id, botId)).sort((a, b) => (a.handoff?.requestedAt ?? 0) - (b.handoff?.requestedAt ?? 0));

  return (
    <section class="inbox-list" aria-label="Conversations">
      <header class="inbox-list-head">
        <p class="inbox-title" aria-hidden="true">Inbox</p>
        <Presence />
      </header>
      {waiting.length > 0 && <Queue waiting={waiting} botName={botName} />}
      <div class="inbox-filters" role="tablist" aria-label="Show">
        {FILTERS.map(([f, text, title]) => (
          <button key={f} type="button" role="tab" title={title} aria-selected={filter === f} class={`chip${filter === f ? ' on' : ''}`} onClick={() => setFilter(f)}
            onKeyDown={(e) => arrowTabs(e, FILTERS.map(([x]) => x), f, setFilter)} tabIndex={filter === f ? 0 : -1} id={`filter-${f}`}>
            {text} {f !== 'ended' && <span class="count" aria-label={`(${count(f)})`}>{count(f)}</span>}
          </button>
        ))}
      </div>
      {bots.length > 1 && (
        <label class="inbox-bot">
          <span class="visually-hidden">Bot</span>
          <select name="bot" value={botId} onChange={(e) => setBotId(e.currentTarget.value)}>
            <option value="">All bots</option>
            {bots.map((b) => <option key={b.id} value={b.id}>{b.name}</option>)}
          </select>
        </label>
      )}
      <div role="tabpanel" aria-labelledby={`filter-${filter}`} class="inbox-items">
        {!model.loaded ? <Loading error={model.error} text="Loading conversations…" /> : shown.length === 0 ? <Empty filter={filter} any={all.length > 0} /> : (
          <ul class="conv-list">
            {shown.map((c) => <Item key={c.id} c={c} model={model} active={c.id === selected} botName={bots.length > 1 ? botName : null} />)}
          </ul>
        )}
        {model.loaded && <ErrorText error={model.error} />}
        {model.nextBefore && <button type="button" class="secondary small more" onClick={() => model.more()}>Load older conversations</button>}
      </div>
    </section>
  );
}

function Item({ c, model, active, botName }: { c: Conv; model: InboxModel; active: boolean; botName: ((id: string) => string) | null }) {
  const unread = model.unread(c);
  const preview = model.preview.get(c.id) ?? c.lastMessage ?? undefined;
  const typing = model.typing.has(c.id);
  const who: Record<string, string> = { user: '', human_agent: 'Team: ', assistant: 'AI: ', system_event: '' };
  const line = typing ? 'typing…' : preview ? `${who[preview.role] ?? ''}${plainText(preview.text)}` : c.handoff?.reason ? c.handoff.reason
    : c.page.title || c.page.url || `${c.messageCount} message${c.messageCount === 1 ? '' : 's'}`;
  return (
    <li class={`conv${active ? ' active' : ''}${unread ? ' unread' : ''}`} data-id={c.id}>
      <a href={`#/inbox/${c.id}`} aria-current={active ? 'true' : undefined}>
        <span class="avatar" aria-hidden="true">{initials(visitorName(c))}</span>
        <span class="conv-main">
          <span class="conv-top">
            <strong class="conv-name">{visitorName(c)}</strong>
            <span class="conv-time"><RelativeTime ms={c.lastMessageAt} /></span>
          </span>
          <span class={`conv-line${typing ? ' typing' : ''}`}>{line}</span>
          <span class="conv-tags">
            {c.handoff?.state === 'requested' && c.status === 'open' && <span class="badge warn">waiting</span>}
            {c.takenOverBy && c.status === 'open' && <span class="badge accent">{c.takenOverBy.userName}</span>}
            {c.status === 'ended' && <span class="badge">ended</span>}
            {botName && <span class="badge">{botName(c.botId)}</span>}
            {c.tags.map((t) => <span key={t} class="badge tag">#{t}</span>)}
          </span>
        </span>
        {unread > 0 && <span class="unread-count" aria-label={`${unread} unread`}>{unread}</span>}
      </a>
    </li>
  );
}

const initials = (name: string) => (name.startsWith('Visitor ') ? name.slice(-2) : name.split(/[\s@.]+/).filter(Boolean).map((w) => w[0]).join('').slice(0, 2)).toUpperCase();

/** The handoff queue: who waits, how long, why; agents take one over from here. */
function Queue({ waiting, botName }: { waiting: Conv[]; botName: (id: string) => string }) {
  const { atLeast } = useSession();
  const act = useAction();
  const take = (c: Conv) => act.run(async () => {
    await api('POST', `/conversations/${encodeURIComponent(c.id)}/takeover`, {});
    toast(`You took over ${visitorName(c)}'s conversation`);
    go(`/inbox/${c.id}`);
  });
  return (
    <div class="queue" role="region" aria-label="Waiting for a person">
      <h2><span class="pulse" aria-hidden="true" /> Waiting for a person <span class="count">{waiting.length}</span></h2>
      <ul>
        {waiting.map((c) => (
          <li key={c.id}>
            <a href={`#/inbox/${c.id}`}><strong>{visitorName(c)}</strong> <small class="muted">{botName(c.botId)} · waiting since <RelativeTime ms={c.handoff!.requestedAt} /></small></a>
            {c.handoff?.reason && <p class="queue-reason">{c.handoff.reason}</p>}
            {atLeast('agent') && <button type="button" class="small" disabled={act.busy} onClick={() => take(c)}>Take over</button>}
          </li>
        ))}
      </ul>
      <ErrorText error={act.error} />
    </div>
  );
}

/** Online/away for handoffs, the connection state, and the sound and notification switches. */
function Presence() {
  const { live, atLeast } = useSession();
  const [sound, setSoundState] = useState(soundOn);
  const [perm, setPerm] = useState(notifyState);
  const state = live.state === 'open' ? live.presence : live.state === 'connecting' ? 'connecting' : 'offline';
  return (
    <div class="presence-bar">
      <span class={`dot ${state}`} aria-hidden="true" />
      {atLeast('agent') ? (
        <label class="presence-select">
          <span class="visually-hidden">Your presence</span>
          <select name="presence" value={live.presence} onChange={(e) => live.setPresence(e.currentTarget.value as 'online' | 'away')}>
            <option value="online">Online</option>
            <option value="away">Away</option>
          </select>
        </label>
      ) : <span class="muted">{state}</span>}
      {live.state !== 'open' && <span class="muted small-text" role="status">{live.state === 'connecting' ? 'Connecting…' : 'Reconnecting…'}</span>}
      {atLeast('agent') && (
        <>
          <button type="button" class="icon-toggle" aria-pressed={sound} title={sound ? 'Sound on for requests' : 'Sound off'} aria-label="Sound for handoff requests"
            onClick={() => { setSound(!sound); setSoundState(!sound); }}><Bell off={!sound} /></button>
          {perm === 'default' && <button type="button" class="link small-text" onClick={async () => setPerm(await askToNotify())}>Turn on notifications</button>}
        </>
      )}
    </div>
  );
}

function Empty({ filter, any }: { filter: Filter; any: boolean }) {
  const text: Record<Filter, [string, string]> = {
    open: ['No open conversations', any ? 'Everything is answered. Ended conversations are under Ended.' : 'Conversations appear here as soon as a visitor writes to one of your bots. Put a bot on your site (Bots → Embed) or try it yourself.'],
    waiting: ['Nobody is waiting', 'When a visitor or the AI asks for a person, the conversation shows up here, with a sound and a notification.'],
    mine: ['Nothing taken over by you', 'Take over a conversation to answer the visitor yourself; the AI stays quiet until you hand it back.'],
    ended: ['No ended conversations', 'Conversations end when the visitor leaves for a while, when the AI says goodbye, or when you close them.'],
  };
  const [title, body] = text[filter];
  return <EmptyState title={title} icon="✓">{body}</EmptyState>;
}

function Bell({ off }: { off: boolean }) {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" aria-hidden="true">
      <path d="M6 8a6 6 0 0 1 12 0c0 7 3 9 3 9H3s3-2 3-9" /><path d="M10.3 21a1.94 1.94 0 0 0 3.4 0" />
      {off && <path d="M3 3l18 18" />}
    </svg>
  );
}

/** Left/Right/Home/End move between tabs (the WAI-ARIA tabs pattern). */
function arrowTabs<T extends string>(e: KeyboardEvent, all: T[], at: T, set: (v: T) => void): void {
  const i = all.indexOf(at);
  const to = e.key === 'ArrowRight' ? (i + 1) % all.length : e.key === 'ArrowLeft' ? (i - 1 + all.length) % all.length : e.key === 'Home' ? 0 : e.key === 'End' ? all.length - 1 : -1;
  if (to < 0) return;
  e.preventDefault();
  set(all[to]!);
  document.getElementById(`filter-${all[to]}`)?.focus();
}
