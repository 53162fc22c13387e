/**
 * #/bots/<id>[/<tab>[/<group>]]: one bot. Tabs: the settings editor (groups, live preview, save bar), the draft
 * compared with the published version, versions with restore, and the embed snippets. Edits are kept here until
 * saved as one PATCH of only the changed settings with the revision read; a 409 shows what someone else changed.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, ApiFailure } from '../../api.js';
import { go, holdRoute } from '../../router.js';
import { useSession } from '../../session.js';
import { confirmDialog, fieldErrors, Loading, toast, useLoad, when } from '../../ui.js';
import { BotActions, Rename } from './actions.js';
import { ConflictBox, type Conflict } from './conflict.js';
import { EditorContext, fieldId, type Connection, type Editor } from './editor.js';
import { EmbedTab } from './embed.js';
import { GROUPS, groupOf } from './groups.js';
import { diff, dropsMapKeys, patchOf, setAt, type Change } from './paths.js';
import { Preview } from './preview.js';
import { forPeople, Problems, PublishTab } from './publish.js';
import { loadConfigSchema } from './schema.js';
import type { BotFull, Json, Problem } from './types.js';
import { VersionsTab } from './versions.js';

const TABS = [['settings', 'Settings'], ['changes', 'Changes'], ['versions', 'Versions'], ['embed', 'Embed']] as const;

/** One-per-line lists drop their blank lines when saved. */
const tidy = (changes: Change[]) => changes.map((c) => (Array.isArray(c.after) && c.after.every((x) => typeof x === 'string') ? { ...c, after: (c.after as string[]).filter((x) => x.trim() !== '') } : c));

/** Focuses the field of a setting path (or of the nearest setting above it) once its group is drawn. */
function focusField(path: string): boolean {
  const parts = path.split('.');
  for (let n = parts.length; n > 0; n--) {
    const p = parts.slice(0, n).join('.');
    const el = document.getElementById(fieldId(p)) ?? document.querySelector<HTMLElement>(`[data-path="${p}"]`);
    if (el) { el.scrollIntoView({ block: 'center' }); el.focus(); return true; }
  }
  return false;
}

export function BotPage({ rest }: { rest: string[] }) {
  const [id, tab = 'settings', groupId = 'identity'] = rest;
  const { atLeast } = useSession();
  const canEdit = atLeast('admin');
  const loaded = useLoad(() => api<BotFull>('GET', `/bots/${encodeURIComponent(id)}`), [id]);
  const schema = useLoad(() => loadConfigSchema());
  const conns = useLoad(() => api<{ items: Connection[] }>('GET', '/providers'));
  const [bot, setBot] = useState<BotFull | null>(null);
  const [draft, setDraft] = useState<Json | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [problems, setProblems] = useState<Problem[]>([]);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [focus, setFocus] = useState<string | null>(null);

  useEffect(() => { if (loaded.data) { setBot(loaded.data); setDraft(loaded.data.draft); } }, [loaded.data]);
  // The field's group is drawn after the hash change: keep trying on each render until the field is there.
  useEffect(() => { if (focus && focusField(focus)) setFocus(null); });
  const pending = useMemo(() => (bot && draft ? diff(bot.draft, draft) : []), [bot, draft]);
  // Leaving the page (reload, closing the tab) with unsaved edits asks first, as the browser words it.
  useEffect(() => {
    if (!pending.length) return;
    const warn = (e: BeforeUnloadEvent) => { e.preventDefault(); e.returnValue = ''; };
    addEventListener('beforeunload', warn);
    // Moving inside this bot (groups, tabs) keeps the edits; another area or bot asks first.
    const release = holdRoute((next) => (next[0] === 'bots' && next[1] === id) || confirmDialog({
      title: 'Leave without saving?', message: 'Your unsaved changes to this bot will be lost.', confirmText: 'Leave', cancelText: 'Stay', danger: true,
    }));
    return () => { removeEventListener('beforeunload', warn); release(); };
  }, [pending.length > 0, id]);

  // The schema is waited for (it decides each control), unless its load failed: then the values' types decide.
  if (!bot || !draft || (!schema.data && !schema.error)) return <section class="bot"><p><a href="#/bots">← Bots</a></p><Loading error={loaded.error} /></section>;
  const base = `/bots/${encodeURIComponent(bot.id)}`;
  const dirty = pending.length > 0;
  const unpublished = bot.published ? diff(bot.published.config, bot.draft).length : 0;
  /** The saved draft equals the live version: publishing would only repeat it (the API answers 409). */
  const upToDate = !!bot.published && unpublished === 0 && !dirty;
  const accept = (b: BotFull, keepEdits = false) => { setBot(b); if (!keepEdits) setDraft(b.draft); setConflict(null); };
  const reloadTheirs = () => { if (conflict) accept(conflict.latest); };
  const keepMine = () => {
    if (!conflict) return;
    const { mine, latest } = conflict;
    setBot(latest); setDraft(mine.reduce((d, c) => setAt(d, c.path, c.after), latest.draft)); setConflict(null);
  };
  const openField = (path: string) => { go(`/bots/${bot.id}/settings/${groupOf(path).id}`); setFocus(path); };

  /** A 409: read the bot again and show what changed; true when handled. */
  const onConflict = (e: unknown): boolean => {
    if (!(e instanceof ApiFailure) || e.status !== 409) return false;
    void api<BotFull>('GET', base).then((latest) => setConflict({ latest, theirs: diff(bot.draft, latest.draft), mine: pending }));
    return true;
  };
  const run = async (fn: () => Promise<void>) => {
    setBusy(true); setFailure(null);
    try { await fn(); } catch (e) {
      if (!onConflict(e)) setFailure(e instanceof Error ? e.message : String(e));
    } finally { setBusy(false); }
  };
  const save = () => run(async () => {
    setProblems([]);
    try {
      const changes = tidy(pending);
      const body = dropsMapKeys(changes)
        ? { revision: bot.revision, config: changes.reduce((cfg, c) => setAt(cfg, c.path, c.after), bot.draft) }
        : { revision: bot.revision, patch: patchOf(changes) };
      accept(await api<BotFull>('PATCH', base, body));
      setErrors({});
      toast('Saved. The preview shows the new draft.');
    } catch (e) {
      const found = e instanceof ApiFailure && e.code === 'invalid' ? fieldErrors(e) : {};
      if (!Object.keys(found).length) throw e;
      setErrors(found);
      const first = Object.keys(found)[0];
      setFailure(`Not saved: ${Object.keys(found).length === 1 ? 'one setting needs' : `${Object.keys(found).length} settings need`} a fix.`);
      openField(first);
    }
  });
  const publish = () => run(async () => {
    setProblems([]);
    try {
      const updated = await api<BotFull>('POST', `${base}/publish`, { revision: bot.revision });
      accept(updated);
      toast(`Published as version ${updated.published?.version}.`);
      setErrors({});
    } catch (e) {
      if (!(e instanceof ApiFailure) || e.code !== 'invalid' || !Array.isArray(e.details)) throw e;
      setProblems(e.details as Problem[]);
      setErrors(Object.fromEntries(Object.entries(fieldErrors(e)).map(([k, m]) => [k, forPeople(m)])));
    }
  });
  const editor: Editor = {
    botId: bot.id, draft, saved: bot.draft, schema: schema.data, errors, canEdit, connections: conns.data?.items ?? (conns.error ? [] : null),
    set: (path, value) => {
      setDraft((d) => setAt(d, path, value));
      // Editing a setting clears its error, and those of its entries (a list's lines).
      if (Object.keys(errors).some((k) => k === path || k.startsWith(`${path}.`) || k.startsWith(`${path}[`))) {
        setErrors((all) => Object.fromEntries(Object.entries(all).filter(([k]) => !(k === path || k.startsWith(`${path}.`) || k.startsWith(`${path}[`)))));
      }
    },
  };
  const group = GROUPS.find((g) => g.id === groupId) ?? GROUPS[0];
  const View = group.view;

  return (
    <section class="bot">
      <p class="back"><a href="#/bots">← Bots</a></p>
      <header class="bot-head">
        <div class="bot-title">
          <h1>{bot.name}</h1>
          <dl class="facts">
            <dt>Status</dt><dd><span class={`badge ${bot.status}`}>{bot.status}</span></dd>
            <dt>Live version</dt><dd>{bot.published ? `version ${bot.published.version}, ${when(bot.published.publishedAt)}` : 'not published yet'}</dd>
            {unpublished > 0 && <><dt>Draft</dt><dd><a class="badge warn" href={`#/bots/${bot.id}/changes`}>{unpublished} unpublished change{unpublished === 1 ? '' : 's'}</a></dd></>}
          </dl>
        </div>
        <div class="bot-head-actions">
          {canEdit && <button type="button" class="publish" disabled={busy || dirty || upToDate} aria-describedby={upToDate ? 'nothing-to-publish' : undefined} title={dirty ? 'Save your edits first' : undefined} onClick={publish}>Publish draft</button>}
          {canEdit && upToDate && <small id="nothing-to-publish" class="muted">Nothing to publish: the draft is the live version {bot.published!.version}. Change a setting and save to publish again.</small>}
          <a class="button secondary" href={`#/try/${bot.id}`}>Try it</a>
          {canEdit && <BotActions bot={bot} onChanged={(b) => accept(b, true)} />}
        </div>
      </header>
      {conflict && <ConflictBox conflict={conflict} revision={bot.revision} onReload={reloadTheirs} onKeepMine={keepMine} />}
      <Problems problems={problems} onField={openField} />
      {failure && <p class="error" role="alert">{failure}</p>}
      <nav class="tabs" aria-label="Bot pages">
        {TABS.map(([t, text]) => <a key={t} class={`tab${tab === t ? ' active' : ''}`} aria-current={tab === t ? 'page' : undefined} href={`#/bots/${bot.id}/${t}`}>{text}</a>)}
      </nav>
      {tab === 'changes' ? <PublishTab draft={bot.draft} published={bot.published?.config ?? null} publishedVersion={bot.publishedVersion} dirty={dirty} onField={openField} />
        : tab === 'versions' ? <VersionsTab bot={bot} dirty={dirty} canEdit={canEdit} onRestored={(b) => accept(b)} onConflict={onConflict} />
        : tab === 'embed' ? <EmbedTab botId={bot.id} version={bot.publishedVersion} />
        : (
          <EditorContext.Provider value={editor}>
            <div class="editor">
              <nav class="groups" aria-label="Setting groups">
                <ul>
                  {GROUPS.map((g) => {
                    const bad = Object.keys(errors).some((p) => groupOf(p).id === g.id);
                    const edited = pending.some((c) => groupOf(c.path).id === g.id);
                    return (
                      <li key={g.id}>
                        <a href={`#/bots/${bot.id}/settings/${g.id}`} class={g.id === group.id ? 'active' : ''} aria-current={g.id === group.id ? 'page' : undefined}>
                          {g.title}{bad && <span class="dot bad" aria-label=" (has errors)" />}{!bad && edited && <span class="dot" aria-label=" (edited)" />}
                        </a>
                      </li>
                    );
                  })}
                </ul>
              </nav>
              <form class="settings" name="settings" noValidate aria-labelledby="group-title" onSubmit={(e) => { e.preventDefault(); if (canEdit && dirty) void save(); }}>
                <h2 id="group-title">{group.title}</h2>
                {!canEdit && <p class="muted">You can read these settings; an admin can change them.</p>}
                {schema.error && <p class="warn">Ranges and defaults could not be read ({schema.error}); the settings can still be edited.</p>}
                {group.id === 'identity' && canEdit && <Rename bot={bot} onRenamed={(b) => accept(b, true)} onConflict={onConflict} />}
                <View hasSecret={bot.hasIdentitySecret} />
                {canEdit && dirty && conflict && (
                  <div class="save-bar conflicted" role="region" aria-label="Unsaved changes">
                    <span>Not saved: someone else changed this bot (their change is shown above).</span>
                    <button type="button" class="secondary" onClick={reloadTheirs}>Reload their version</button>
                    <button type="button" onClick={keepMine}>Keep my {pending.length} edit{pending.length === 1 ? '' : 's'} on top</button>
                  </div>
                )}
                {canEdit && dirty && !conflict && (
                  <div class="save-bar" role="region" aria-label="Unsaved changes">
                    <span>{pending.length} unsaved change{pending.length === 1 ? '' : 's'}</span>
                    <button type="button" class="secondary" disabled={busy} onClick={() => { setDraft(bot.draft); setErrors({}); }}>Discard</button>
                    <button type="submit" disabled={busy}>{busy ? 'Saving…' : 'Save changes'}</button>
                  </div>
                )}
              </form>
              <Preview botId={bot.id} revision={bot.revision} dirty={dirty} />
            </div>
          </EditorContext.Provider>
        )}
    </section>
  );
}
