/**
 * #/inbox and #/inbox/<id>: the team's inbox in three panes (conversations, the open transcript, its details),
 * kept current from the live socket. Below 900 px one pane shows at a time. #/conversations[/<id>] and #/live,
 * the pages this replaced, lead here (pages/index.tsx rewrites them).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, query } from '../../api.js';
import { useSession } from '../../session.js';
import type { BotSummary, LiveEventOf, Page } from '../../types.js';
import { beep, notify, soundOn } from './alerts.js';
import { Details } from './details.js';
import { ListPane } from './list.js';
import { InboxModel } from './model.js';
import { Thread } from './thread.js';
import type { Conv } from './types.js';

export type Pane = 'list' | 'thread' | 'details';

/** The visitor's name or e-mail when known, else a short stable label from their id. */
export const visitorName = (c: Pick<Conv, 'visitorId' | 'visitor'>) => c.visitor?.name || c.visitor?.email || `Visitor ${c.visitorId.slice(-4).toUpperCase()}`;

/** Redraws the component whenever the model changes. */
export function useModel(model: InboxModel): void {
  const [, set] = useState(0);
  useEffect(() => model.subscribe(() => set((n) => n + 1)), [model]);
}

export default function InboxArea({ rest }: { rest: string[] }) {
  const { live, me, atLeast } = useSession();
  const model = useMemo(() => new InboxModel(live, { id: me.user.id, name: me.user.name }, (c, e) => alertFor(c, e, atLeast('agent'))), [live]);
  useEffect(() => model.start(), [model]);
  useModel(model);
  const [bots, setBots] = useState<BotSummary[]>([]);
  useEffect(() => {
    const read = () => { api<Page<BotSummary>>('GET', `/bots${query({ limit: 100 })}`).then((p) => setBots(p.items), () => {}); };
    read();
    // A bot published after the inbox opened joins the bot picker.
    return live.subscribe((e) => { if (e?.type === 'bot.published') read(); });
  }, [live]);

  const selected = rest[0] ?? null;
  const [pane, setPane] = useState<Pane>(selected ? 'thread' : 'list');
  useEffect(() => { setPane(selected ? 'thread' : 'list'); model.view(selected); }, [selected]);
  useEffect(() => () => model.view(null), [model]);
  const conv = selected ? model.convs.get(selected) : undefined;
  // The tab's title counts unread messages, so a person in another tab sees new work arrive.
  const unread = model.totalUnread();
  useEffect(() => { const before = document.title; return () => { document.title = before; }; }, []);
  useEffect(() => { document.title = unread ? `(${unread}) Inbox` : 'Inbox'; }, [unread]);
  const botName = (id: string) => bots.find((b) => b.id === id)?.name ?? id;

  return (
    <div class="inbox" data-pane={pane}>
      {/* The page's one heading stays when the list pane is folded away on a phone. */}
      <h1 class="visually-hidden">Inbox</h1>
      <ListPane model={model} bots={bots} selected={selected} botName={botName} />
      {selected ? (
        <>
          <Thread key={selected} id={selected} model={model} botName={botName} onPane={setPane} />
          {conv && <Details key={`d-${selected}`} conv={conv} model={model} botName={botName} onPane={setPane} />}
        </>
      ) : (
        <section class="inbox-thread inbox-none" aria-label="Conversation">
          <div class="inbox-none-text">
            <svg class="big" width="48" height="48" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="1.5" aria-hidden="true">
              <path d="M21 12a8 8 0 0 1-11.6 7.1L4 20l1-4.4A8 8 0 1 1 21 12z" />
            </svg>
            <h2>Pick a conversation</h2>
            <p class="muted">Choose one on the left to read it, take it over and reply. New conversations and requests for a person appear there as they happen.</p>
          </div>
        </section>
      )}
    </div>
  );
}

/** Sound and a browser notification when a visitor or the AI asks for a person (only for people who can answer). */
function alertFor(c: Conv | undefined, e: LiveEventOf<'handoff.requested'>, canAnswer: boolean): void {
  if (!canAnswer) return;
  if (soundOn()) beep();
  const who = c ? visitorName(c) : 'A visitor';
  notify(`${who} is waiting for a person`, e.data.reason ?? e.data.summary ?? 'Open the inbox to take the conversation over.', e.data.conversationId);
}
