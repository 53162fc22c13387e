/** Shapes of the webhooks API answers. */
export interface Endpoint { id: string; url: string; events: string[]; active: boolean; consecutiveFailures: number; disabledAt: number | null; createdAt: number; updatedAt: number }
export interface Delivery {
  id: string; endpointId: string; eventId: string; eventType: string; state: 'queued' | 'retrying' | 'delivered' | 'failed';
  attempts: number; nextAttemptAt: number | null; statusCode: number | null; response: string | null; error: string | null;
  manual: boolean; redeliveryOf: string | null; createdAt: number; lastAttemptAt: number | null; finishedAt: number | null;
  history: Array<{ at: number; statusCode: number | null; error: string | null; durationMs: number }>;
}
/** What each event is, for the checkboxes (names from the API's list; unknown names show as they are). */
export const EVENT_TEXT: Record<string, string> = {
  'conversation.started': 'a visitor started a conversation',
  'conversation.ended': 'a conversation ended',
  'message.created': 'a message was stored',
  'lead.captured': 'a lead was captured',
  'handoff.requested': 'someone asked for a person',
  'handoff.accepted': 'a person took over',
  'handoff.resolved': 'handed back to the bot',
  'feedback.received': 'thumbs or a CSAT score',
  ping: 'the test button',
};
