/**
 * A 409 on save, publish or restore: someone changed the bot since this page read it. Shows what they changed,
 * and offers to reload their version (dropping this page's edits) or to keep these edits on top of theirs.
 */
import { useEffect, useRef } from 'preact/hooks';
import { ChangeTable } from './changes.js';
import type { Change } from './paths.js';
import type { BotFull } from './types.js';

export interface Conflict { latest: BotFull; theirs: Change[]; mine: Change[] }

export function ConflictBox(props: { conflict: Conflict; revision: number; onReload: () => void; onKeepMine: () => void }) {
  const { latest, theirs, mine } = props.conflict;
  // The person clicked Save far below: bring the notice to them, and the keyboard with it.
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => { box.current?.scrollIntoView({ block: 'start' }); box.current?.focus({ preventScroll: true }); }, [props.conflict]);
  return (
    <div class="conflict error" role="alert" tabIndex={-1} ref={box}>
      <p><strong>Not saved: this bot was changed by someone else</strong> (or in another tab) since you opened it (revision {props.revision} → {latest.revision}).
        {theirs.length ? ` They changed ${theirs.length} setting${theirs.length === 1 ? '' : 's'}:` : ' The settings are the same; the name or status may have changed.'}</p>
      <ChangeTable changes={theirs} before="When you opened it" after="Now" caption="Changes made by someone else" />
      <div class="actions">
        <button type="button" onClick={props.onReload}>Reload their version{mine.length ? ' (drop my edits)' : ''}</button>
        {mine.length > 0 && <button type="button" class="secondary" onClick={props.onKeepMine}>Keep my {mine.length} edit{mine.length === 1 ? '' : 's'} on top of theirs</button>}
      </div>
    </div>
  );
}
