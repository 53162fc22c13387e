/** Texts and greeting: the chat's own words, and the teaser bubble by the launcher. */
import { Block, Setting } from './fields.js';
import { STRINGS } from '../../../../widget/src/chat/strings.js';
import { KeyValues } from './key-values.js';

/** texts.strings: own wording for interface texts, by key. */
const Strings = () => (
  <KeyValues path="texts.strings" legend="Own wording" addText="Add a wording" keyHint="composer.send" known={STRINGS}
    hint="Your own words for any interface text of the chat: pick the text by its key (the list shows each with its standard words), then write yours. {name} parts are filled in." />
);

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
