/** Welcome: the first message, one-tap questions, and the spoken hello. */
import { Block, Setting } from './fields.js';

export default function WelcomeGroup() {
  return (
    <Block title="Welcome">
      <Setting path="welcome.message" label="Welcome message" kind="textarea" rows={3}
        help="First message in the chat; empty means none. Accepts {{agent.name}}, {{agent.role}}, {{business.name}}" />
      <Setting path="welcome.suggestedPrompts" label="Suggested questions" rows={4} help="One per line; shown until the visitor sends a message"
        placeholder={'What are your opening hours?\nWhere is my order?'} />
      <Setting path="welcome.speakGreeting" label="Say hello first in voice" help="When a conversation starts with voice" />
    </Block>
  );
}
