/**
 * The widget chat socket's frames (docs/widget-protocol.md), as types only: the server (src/conversation/protocol.ts
 * validates client frames with zod and checks its schema against ClientFrame) and the widget (widget/src) both
 * import them, so a frame one side sends is the frame the other side reads. This folder imports nothing and holds
 * no code: `import type` only (npm run deps checks both), so no server code or zod enters a browser bundle.
 */

export type MessageRole = 'user' | 'assistant' | 'human_agent' | 'system_event';

/** An attached picture (service-api.md, Message); camera: a camera frame the bot shares with the team. */
export interface WidgetAttachment {
  id: string;
  mimeType: string;
  width: number;
  height: number;
  camera?: { shared: boolean; description?: string };
}

/** The spec's message shape (service-api.md, Message), without its attachments, whose shape each socket gives. */
export interface MessageFields {
  id: string;
  seq: number;
  role: MessageRole;
  text: string;
  modality: 'text' | 'voice';
  createdAt: number;
  authorName: string | null;
  visibility: 'visible' | 'internal';
}

/** A stored message as the widget gets it: the spec's message shape plus the reply's sources (behavior.citations). */
export interface WidgetMessage extends MessageFields {
  attachments: WidgetAttachment[];
  citations?: Array<{ title: string; url?: string | null; sourceId: string }>;
}

export type ChatErrorCode = 'bad_request' | 'unauthorized' | 'invalid' | 'rate_limited' | 'session_limit' | 'not_found' | 'forbidden' | 'internal' | 'unavailable' | 'insufficient_storage';

/** A field of the lead form (behavior.leadCapture.fields). */
export interface LeadField {
  key: string;
  label: string;
  type: 'text' | 'email' | 'tel' | 'textarea' | 'select';
  required: boolean;
  options?: string[];
}

/** Why the form is shown: leadCapture.when start / before_handoff, or an offline flow. */
export type LeadFormReason = 'start' | 'before_handoff' | 'offline';

/** Show this form; the visitor answers with { t: 'lead', fields }. */
export interface LeadFormFrame {
  t: 'lead_form';
  /** Null for the start form, shown before the conversation exists. */
  conversationId: string | null;
  reason: LeadFormReason;
  fields: LeadField[];
}

export type VoiceState = 'connecting' | 'listening' | 'thinking' | 'speaking' | 'ended';
export type VoiceMode = 'hands_free' | 'ptt';
export type VoiceEndReason =
  | 'visitor' | 'max_duration' | 'idle' | 'cap_reached' | 'team_takeover' | 'conversation_ended' | 'engine_error' | 'unavailable' | 'socket_closed';

/** Voice (docs/widget-protocol.md, Voice): binary audio frames (0x01 + PCM16) go beside these. */
export type VoiceServerFrame =
  | {
      t: 'voice'; state: VoiceState; sessionId: string; mode: VoiceMode; inputRate: number; outputRate: number;
      reason?: VoiceEndReason; message?: string;
    }
  | { t: 'voice_item'; itemId: string; messageId: string }
  /** No more audio comes for this item: the widget plays what it holds, then answers voice_played. */
  | { t: 'voice_item_done'; itemId: string }
  | { t: 'voice_interrupt'; itemId: string };

export type CameraServerFrame =
  /** Take a picture now and answer with camera_frame and this requestId (or camera_fail). */
  | { t: 'camera_request'; requestId: string }
  /** A frame was stored (its attachment id), or, with requestId, handed to the agent. */
  | { t: 'camera_frame_ok'; frameId: string; requestId?: string };

/** A word of a reply read aloud and when it is heard (ms from the item's first audio). */
export interface SpokenWord { text: string; startMs: number; endMs: number }

export interface ErrorFrame {
  t: 'error';
  code: ChatErrorCode;
  message: string;
  retryAfterMs?: number;
  /** The refused message's clientId. */
  clientId?: string;
  /** A cascade voice stage that failed mid-turn. */
  stage?: 'stt' | 'brain' | 'tts';
  /** voice_start refused because the visitor's or the address's voice sessions at once are all live. */
  limit?: 'visitor' | 'address';
}

export interface ReadyFrame {
  t: 'ready';
  visitorId: string;
  visitorToken: string;
  verified: boolean;
  conversationId: string | null;
  /** Earlier visible messages of a resumed conversation (empty when behavior.persistence.showHistory is off). */
  history: WidgetMessage[];
  /** The rendered welcome message and suggested prompts (shown until the visitor sends a message). */
  welcome: { message: string; suggestedPrompts: string[] };
  feedback: { thumbs: boolean; csat: boolean };
  /** The bot is outside its opening hours with behavior.hours.scope bot (the face sleeps); `offline` frames follow changes. */
  offline: boolean;
  /**
   * The bot is paused: the chat takes no messages (they are refused with an error frame); the widget shows the
   * offline text and, when lead capture is on, the lead form that follows (reason offline). Absent when running.
   */
  paused?: true;
}

export type MessageFrame = { t: 'message'; conversationId: string; message: WidgetMessage; clientId?: string };

/** What the server sends on the chat socket (text frames; audio is binary). */
export type ServerFrame =
  | ReadyFrame
  /** The bot's opening hours (scope bot) opened or closed while the widget is open. */
  | { t: 'offline'; offline: boolean }
  | { t: 'conversation'; conversationId: string | null }
  | MessageFrame
  | { t: 'delta'; conversationId: string; messageId: string; responseId: string; delta: string }
  /** The reply being streamed was dropped (a team member took over, or the model failed). */
  | { t: 'delta_reset'; conversationId: string; messageId: string }
  /** The reply being streamed will not be finished and was not stored (the process writing it died or froze). */
  | { t: 'interrupted'; conversationId: string; messageId: string }
  | { t: 'status'; conversationId: string; state: 'thinking' | 'tool' | 'idle'; tool?: { name: string; label: string } }
  | { t: 'face'; mood: string }
  | { t: 'typing'; active: boolean; authorName?: string | null }
  | { t: 'ended'; conversationId: string; reason: string; askCsat: boolean }
  /** The visitor's thumb on a reply, or their rating of the ended conversation, was stored. */
  | { t: 'feedback_ok'; kind: 'thumb'; messageId: string; value: 1 | -1 }
  | { t: 'feedback_ok'; kind: 'csat'; messageId: null; value: number }
  | ErrorFrame
  /** Run a page tool in the browser; answer with tool_result and the same callId. */
  | { t: 'tool_call'; callId: string; name: string; args: Record<string, unknown> }
  /** Ask the visitor before a destructive tool runs; answer with confirm and the same confirmId. */
  | { t: 'confirm'; confirmId: string; tool: { name: string; label: string }; args: Record<string, unknown> }
  /** Show the lead form (leadCapture.when start / before_handoff, or an offline flow); answer with a lead frame. */
  | LeadFormFrame
  | { t: 'lead_ok'; leadId: string }
  /** The visitor's handoff request was taken: `available` tells whether a person may join soon. */
  | { t: 'handoff'; handoffId: string; available: boolean }
  | { t: 'pong' }
  /** A reply is read aloud (speak on): binary audio frames (0x01 + PCM16 at `rate`) for it follow, then speak_end. */
  | { t: 'speak_item'; itemId: string; messageId: string; rate: number }
  | { t: 'speak_end'; itemId: string }
  /** Words of the item and when they are heard (ms from its first audio), where the provider times them (kind D). */
  | { t: 'speak_words'; itemId: string; words: SpokenWord[] }
  /** Reading a reply aloud failed; the text is unaffected. */
  | { t: 'speak_error'; messageId: string; message: string }
  | VoiceServerFrame
  | CameraServerFrame;

/** The server frame of type T. */
export type ServerFrameOf<T extends ServerFrame['t']> = Extract<ServerFrame, { t: T }>;

export interface PageToolSpec { name: string; description: string; parameters: Record<string, unknown> }

/**
 * What the widget sends (JSON text frames). The server validates each with its zod schema (ClientFrameSchema,
 * src/conversation/protocol.ts), which also bounds lengths; the compiler checks the two describe the same frames.
 */
export type ClientFrame =
  /** text length is checked against security.maxMessageChars; clientId is echoed back on the stored message. */
  | { t: 'message'; text: string; attachments?: string[]; clientId?: string }
  | { t: 'typing'; active: boolean }
  | { t: 'feedback'; messageId: string; value: 1 | -1 }
  | { t: 'csat'; value: number; comment?: string }
  | { t: 'new_conversation' }
  /** The tools the page registered (replaces earlier ones); used only when tools.client allows them. */
  | { t: 'tools'; tools: PageToolSpec[] }
  /** The visitor asks for a person (chat menu), when behavior.handoff.enabled. */
  | { t: 'handoff'; reason?: string }
  /** The visitor sends the lead form the server showed (lead_form). */
  | { t: 'lead'; fields: Record<string, string> }
  /** The page's answer to a tool_call frame. */
  | { t: 'tool_result'; callId: string; content: string; isError?: boolean }
  /** The visitor's answer to a confirm frame (run a destructive tool or not). */
  | { t: 'confirm'; confirmId: string; approved: boolean }
  | { t: 'ping' }
  /** Read replies aloud to this widget (appearance.face.textReplies speak), sent once the visitor has clicked or typed. */
  | { t: 'speak'; on: boolean }
  | { t: 'voice_start'; mode?: VoiceMode }
  | { t: 'voice_ptt'; down: boolean }
  | { t: 'voice_played'; itemId: string; ms: number }
  | { t: 'voice_stop' }
  /** on: consent given and the camera runs; off: the visitor turned it off; denied / failed: the browser said no. */
  | { t: 'camera'; state: 'on' | 'off' | 'denied' | 'failed'; message?: string }
  /** One picture (base64 JPEG or WebP); with requestId it answers a camera_request. */
  | { t: 'camera_frame'; data: string; requestId?: string }
  /** The picture a camera_request asked for could not be taken. */
  | { t: 'camera_fail'; requestId: string; message: string };
