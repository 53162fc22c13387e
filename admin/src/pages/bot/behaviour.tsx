/** Behaviour: lead capture, handoff to people, opening hours, feedback, returning visitors and chat menu options. */
import { useEditor } from './editor.js';
import { Block, Setting } from './fields.js';
import { LeadFields, WeeklyHours } from './lists.js';

export default function BehaviourGroup() {
  const ed = useEditor();
  const b = ed.draft.behavior ?? {};
  return (
    <>
      <Block title="Lead capture">
        <Setting path="behavior.leadCapture.enabled" label="Collect contact details" />
        <Setting path="behavior.leadCapture.when" label="When" options={[['tool', 'The agent asks in conversation'], ['start', 'A form before the first message'], ['before_handoff', 'A form when a handoff starts'], ['offline', 'A form only when nobody is available']]} />
        {/* The form shows in offline flows whatever `when` says, so its fields matter whenever capture is on. */}
        {b.leadCapture?.enabled && <LeadFields />}
      </Block>
      <Block title="Handoff to a person">
        <Setting path="behavior.handoff.enabled" label="Allow handoff" help="The agent, or the visitor from the chat menu, may ask for a team member" />
        <Setting path="behavior.handoff.acceptTimeoutSec" label="Wait for someone to accept" unit="seconds" />
        <Setting path="behavior.handoff.offlineAction" label="When nobody is available" options={[['lead_form', 'Show the away message and the lead form'], ['message', 'Show the away message'], ['none', 'Show the away message only']]} />
      </Block>
      <Block title="Opening hours">
        <Setting path="behavior.hours.enabled" label="Use opening hours" />
        <Setting path="behavior.hours.scope" label="Hours apply to" options={[['handoff', 'Handoffs only'], ['bot', 'The whole bot (the AI is away too)']]} />
        <Setting path="behavior.hours.timezone" label="Time zone of the hours" />
        {b.hours?.enabled && <WeeklyHours />}
        <Setting path="behavior.hours.holidays" label="Closed days" help="One date per line, YYYY-MM-DD" placeholder="2026-12-25" />
      </Block>
      <Block title="Conversations">
        <Setting path="behavior.feedback.thumbs" label="Thumbs on replies" />
        <Setting path="behavior.feedback.csat" label="Ask for a rating at the end" />
        <Setting path="behavior.persistence.resumeWindowHours" label="Returning visitors continue within" unit="hours" help="0 always starts a new conversation" />
        <Setting path="behavior.persistence.showHistory" label="Show earlier messages to returning visitors" />
        <Setting path="behavior.endAfterIdleMinutes" label="Close idle conversations after" unit="minutes" />
        <Setting path="behavior.citations" label="Show knowledge sources under replies" />
        <Setting path="behavior.newConversation" label="Offer New conversation" />
        <Setting path="behavior.transcriptDownload" label="Offer Download transcript" />
        <Setting path="behavior.poweredBy" label="Show the attribution line" />
      </Block>
    </>
  );
}
