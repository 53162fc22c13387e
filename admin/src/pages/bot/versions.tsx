/** Published versions, newest first: compare one with the draft, or copy it back into the draft. */
import { useState } from 'preact/hooks';
import { api } from '../../api.js';
import { confirmDialog, ErrorText, Loading, toast, useAction, useLoad, when } from '../../ui.js';
import { ChangeTable } from './changes.js';
import { diff } from './paths.js';
import type { BotFull, Json } from './types.js';

interface Version { version: number; publishedAt: number; publishedBy: { id: string; name: string } | null; config: Json }

export function VersionsTab(props: { bot: BotFull; dirty: boolean; canEdit: boolean; onRestored: (b: BotFull) => void; onConflict: (e: unknown) => boolean }) {
  const { bot } = props;
  const list = useLoad(() => api<{ items: Version[] }>('GET', `/bots/${encodeURIComponent(bot.id)}/versions`), [bot.id, bot.publishedVersion]);
  const [open, setOpen] = useState<number | null>(null);
  const act = useAction();
  const restore = async (v: Version) => {
    const ok = await confirmDialog({
      title: `Restore version ${v.version} into the draft?`, confirmText: 'Restore into draft',
      message: `The draft becomes a copy of version ${v.version}${props.dirty ? ', and your unsaved edits are dropped' : ''}. Visitors keep seeing the published version until you publish.`,
    });
    if (!ok) return;
    await act.run(async () => {
      try {
        props.onRestored(await api<BotFull>('POST', `/bots/${encodeURIComponent(bot.id)}/versions/${v.version}/restore`, { revision: bot.revision }));
        toast(`Version ${v.version} is now the draft. Publish to make it live.`);
      } catch (e) { if (!props.onConflict(e)) throw e; }
    });
  };
  if (!list.data) return <Loading error={list.error} />;
  if (!list.data.items.length) return <p class="empty muted">No versions yet. Each publish freezes the draft as a numbered version you can come back to.</p>;
  return (
    <section aria-labelledby="versions-title">
      <h2 id="versions-title" class="sr-only">Versions</h2>
      <ErrorText error={act.error} />
      <ol class="versions">
        {list.data.items.map((v) => {
          const changes = diff(v.config, bot.draft);
          return (
            <li key={v.version} class="row-card">
              <div class="row-head">
                <h3>Version {v.version}{v.version === bot.publishedVersion && <span class="pill good">live</span>}</h3>
                <span class="muted grow">{when(v.publishedAt)}{v.publishedBy ? ` by ${v.publishedBy.name}` : ''}</span>
                <button type="button" class="secondary small" aria-expanded={open === v.version} onClick={() => setOpen(open === v.version ? null : v.version)}>
                  {open === v.version ? 'Hide differences' : `Compare with draft (${changes.length})`}
                </button>
                {props.canEdit && <button type="button" class="secondary small" disabled={act.busy} onClick={() => restore(v)}>Restore</button>}
              </div>
              {open === v.version && (changes.length
                ? <ChangeTable changes={changes} before={`Version ${v.version}`} after="Draft" caption={`Version ${v.version} compared with the draft`} />
                : <p class="muted">Same as the saved draft.</p>)}
            </li>
          );
        })}
      </ol>
    </section>
  );
}
