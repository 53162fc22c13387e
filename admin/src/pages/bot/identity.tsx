/** Identity and instructions: who the agent is, how it speaks, and what it must and must not do. */
import { useEditor } from './editor.js';
import { Block, Setting } from './fields.js';

const VARS = 'Accepts {{agent.name}}, {{agent.role}}, {{business.name}}, {{page.url}}, {{page.title}}, {{visitor.name}}, {{visitor.email}}';

export default function IdentityGroup() {
  const { draft } = useEditor();
  // {{business.name}} falls back to the agent's name: an empty business name makes "Ava from Ava".
  const unnamed = !draft.identity?.businessName && /\{\{\s*business\.name\s*\}\}/.test(`${draft.welcome?.message ?? ''}${draft.identity?.instructions ?? ''}`);
  return (
    <>
      <Block title="Who the agent is">
        <Setting path="identity.agentName" label="Agent name" help="The chat title and {{agent.name}}" />
        <Setting path="identity.role" label="Role" help="Shown under the name; part of the prompt" />
        <Setting path="identity.businessName" label="Business name" help="For the prompt and {{business.name}}" placeholder="Acme Inc." />
        {unnamed && <p class="warn wide" role="note">The welcome or the instructions mention {'{{business.name}}'}; while the business name is empty it reads as the agent's name ("{draft.identity?.agentName} from {draft.identity?.agentName}").</p>}
      </Block>
      <Block title="Language and time">
        <Setting path="identity.language" label="Language" help="A language tag such as en or de-CH" />
        <Setting path="identity.languagePolicy" label="Reply language" options={[['match_visitor', "The visitor's language"], ['fixed', 'Always the language above']]} />
        <Setting path="identity.timezone" label="Time zone" help="IANA name such as Europe/Berlin; the agent is told the time in it" />
      </Block>
      <Block title="Personality">
        <Setting path="identity.personality.preset" label="Tone" help="Custom uses only the text below" />
        <Setting path="identity.personality.text" label="More about the personality" kind="textarea" rows={3} />
      </Block>
      <Block title="Instructions">
        <Setting path="identity.instructions" label="Instructions" kind="textarea" rows={10} help={VARS}
          placeholder="You answer questions about our products and orders. Keep answers short…" />
        <Setting path="identity.guardrails" label="Guardrails" kind="textarea" rows={4} help="Things the agent must not do or discuss; same variables"
          placeholder="Never promise refunds. Do not give legal advice." />
      </Block>
    </>
  );
}
