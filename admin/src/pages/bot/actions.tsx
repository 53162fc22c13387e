/** The bot's own actions in its header: rename, pause or resume, duplicate, delete (each only for admins and up). */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { go } from '../../router.js';
import { confirmDialog, ErrorText, Form, toast, useAction } from '../../ui.js';
import type { BotFull } from './types.js';

export function BotActions({ bot, onChanged }: { bot: BotFull; onChanged: (b: BotFull) => void }) {
  const act = useAction();
  const path = `/bots/${encodeURIComponent(bot.id)}`;
  const status = async (s: 'running' | 'paused') => {
    // What visitors get is what the bot offers when offline, from the config the widget runs (the published one).
    const live = bot.published?.config ?? bot.draft;
    const offline = String(live.texts?.offline ?? '');
    const lead = !!live.behavior?.leadCapture?.enabled;
    if (s === 'paused' && !(await confirmDialog({
      title: `Pause ${bot.name}?`, confirmText: 'Pause bot',
      message: `Visitors on your site will read your offline text${offline ? ` ("${offline}")` : ''}`
        + `${lead ? ' and can leave their details in the lead form' : ''}; they cannot send messages. Conversations under way get no more answers. `
        + 'When you resume, open chats come back within a minute, without a reload.',
    }))) return;
    await act.run(async () => {
      onChanged(await api<BotFull>('POST', `${path}/status`, { status: s }));
      toast(s === 'paused' ? 'Paused: visitors read your offline text until you resume.' : 'Running again: visitors can chat.');
    });
  };
  const duplicate = () => act.run(async () => {
    const copy = await api<BotFull>('POST', `${path}/duplicate`, {});
    toast(`Made "${copy.name}", a copy of the draft.`);
    go(`/bots/${copy.id}`);
  });
  const remove = async () => {
    const ok = await confirmDialog({
      title: `Delete ${bot.name}?`, danger: true, confirmText: 'Delete bot',
      message: 'The bot, its draft and all its versions are deleted, and websites embedding it stop showing the chat. This cannot be undone.',
    });
    if (!ok) return;
    await act.run(async () => {
      await api('DELETE', path);
      toast(`Deleted ${bot.name}.`);
      go('/bots');
    });
  };
  return (
    <div class="bot-actions">
      {bot.status === 'running'
        ? <button type="button" class="secondary" disabled={act.busy} onClick={() => status('paused')}>Pause</button>
        : <button type="button" class="secondary" disabled={act.busy} onClick={() => status('running')}>Resume</button>}
      <button type="button" class="secondary" disabled={act.busy} onClick={duplicate}>Duplicate</button>
      <button type="button" class="secondary danger" disabled={act.busy} onClick={remove}>Delete</button>
      <ErrorText error={act.error} />
    </div>
  );
}

export function Rename({ bot, onRenamed, onConflict }: { bot: BotFull; onRenamed: (b: BotFull) => void; onConflict: (e: unknown) => boolean }) {
  const [name, setName] = useState(bot.name);
  const act = useAction();
  const submit = () => act.run(async () => {
    try { onRenamed(await api<BotFull>('PATCH', `/bots/${encodeURIComponent(bot.id)}`, { revision: bot.revision, name })); toast('Renamed.'); } catch (e) { if (!onConflict(e)) throw e; }
  });
  return (
    <Form onSubmit={submit} class="inline-form rename" name="rename">
      <label class="field"><span>Bot name (only your team sees it)</span>
        <input name="name" value={name} required maxLength={80} onInput={(e) => setName(e.currentTarget.value)} /></label>
      <button type="submit" class="secondary" disabled={act.busy || !name.trim() || name === bot.name}>Rename</button>
      <ErrorText error={act.error} />
    </Form>
  );
}
