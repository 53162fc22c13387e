/** Texts and greeting: the chat's own words, and the teaser bubble by the launcher. */
import { useEffect, useState } from 'preact/hooks';
import { useEditor } from './editor.js';
import { Block, Setting } from './fields.js';

const lines = (map: Record<string, string>) => Object.entries(map).map(([k, v]) => `${k} = ${v}`).join('\n');
const parse = (text: string): Record<string, string> =>
  Object.fromEntries(text.split('\n').map((l) => l.split(/=(.*)/s).map((x) => x.trim())).filter(([k]) => k).map(([k, v]) => [k, v ?? '']));

/** texts.strings: own wording for interface texts, as key = text lines. */
function Strings() {
  const ed = useEditor();
  const map: Record<string, string> = ed.draft.texts?.strings ?? {};
  const [raw, setRaw] = useState(() => lines(map));
  // Discard or a reload changes the map under the text: show it again (typing keeps the two in step).
  useEffect(() => { if (JSON.stringify(parse(raw)) !== JSON.stringify(map)) setRaw(lines(map)); }, [JSON.stringify(map)]);
  return (
    <div class="setting textarea wide" data-path="texts.strings">
      <div class="setting-label"><label for="set-texts-strings">Own wording</label></div>
      <textarea id="set-texts-strings" rows={3} disabled={!ed.canEdit} value={raw} aria-describedby="set-texts-strings-hint" placeholder="send = Ask"
        onInput={(e) => { setRaw(e.currentTarget.value); ed.set('texts.strings', parse(e.currentTarget.value)); }} />
      <small class="hint" id="set-texts-strings-hint">One per line, key = text, for any interface text of the chat</small>
    </div>
  );
}

export default function TextsGroup() {
  return (
    <>
      <Block title="Chat texts">
        <Setting path="texts.title" label="Title" help="Empty uses the agent's name" />
        <Setting path="texts.subtitle" label="Subtitle" help="Empty uses the agent's role" />
        <Setting path="texts.placeholder" label="Message box placeholder" />
        <Setting path="texts.offline" label="Away message" kind="textarea" rows={3} help="Outside opening hours and when nobody can take over; accepts {{agent.name}}" />
        <Strings />
      </Block>
      <Block title="Greeting bubble" intro="A short teaser by the launcher that invites visitors to ask.">
        <Setting path="greeting.enabled" label="Show the greeting" />
        <Setting path="greeting.text" label="Greeting" help="Accepts {{agent.name}}" />
        <Setting path="greeting.delayMs" label="Delay after page load" unit="ms" />
        <Setting path="greeting.frequency" label="How often" options={[['session', 'Once per browser tab'], ['visitor', 'Until the visitor closes it'], ['always', 'On every page']]} />
        <Setting path="greeting.pages.include" label="Only on these paths" help="One per line; * matches anything; empty means every page" placeholder="/pricing*" />
        <Setting path="greeting.pages.exclude" label="Never on these paths" help="One per line" placeholder="/checkout*" />
        <Setting path="greeting.mobile" label="Also on phones" />
      </Block>
    </>
  );
}
