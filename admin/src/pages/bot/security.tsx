/** Security: where the chat may be embedded, visitor identity, rate limits and daily caps. */
import { useEditor } from './editor.js';
import { Block, Setting } from './fields.js';
import { IdentitySecret } from './identity-secret.js';

export default function SecurityGroup({ hasSecret }: { hasSecret: boolean }) {
  const ed = useEditor();
  const origins: string[] = ed.draft.security?.allowedOrigins ?? [];
  return (
    <>
      <Block title="Where it may be embedded">
        <Setting path="security.allowedOrigins" label="Allowed sites" rows={4} placeholder={'https://example.com\nhttps://*.example.com'}
          help="One per line: a full origin, https://*.example.com, http://localhost:*, a bare host, or *" />
        {origins.filter(Boolean).length === 0 && <p class="warn wide" role="note">With no sites listed, any website can embed this bot and use its model on your account. List your sites.</p>}
      </Block>
      <Block title="Visitor identity" intro="Signed-in users of your site can be verified with a hash made with the bot's identity secret.">
        <Setting path="security.identity.mode" label="Identity" options={[['off', 'Off: ignore the page user'], ['optional', 'Optional: verified when the hash is valid'], ['required', 'Required: every visitor needs a valid hash']]} />
        <IdentitySecret botId={ed.botId} hasSecret={hasSecret} canEdit={ed.canEdit} />
      </Block>
      <Block title="Rate limits">
        <Setting path="security.rateLimits.messagesPerMinute" label="Messages per visitor per minute" />
        <Setting path="security.rateLimits.conversationsPerIpPerHour" label="New conversations per IP per hour" />
        <Setting path="security.rateLimits.uploadsPerHour" label="Images per visitor per hour" />
        <Setting path="security.maxMessageChars" label="Longest visitor message" unit="characters" />
        <Setting path="security.maxTurnsPerConversation" label="Turns per conversation" />
      </Block>
      <Block title="Daily caps" intro="Counted per UTC day; empty means no cap.">
        <Setting path="security.caps.dailyUsd" label="Spend" unit="USD" nullText="no cap" help="Estimated from list prices" />
        <Setting path="security.caps.dailyVoiceMinutes" label="Voice minutes" nullText="no cap" />
        <Setting path="security.caps.dailyMessages" label="Agent replies" nullText="no cap" />
        <Setting path="security.caps.concurrentVoiceSessions" label="Voice conversations at once" />
      </Block>
    </>
  );
}
