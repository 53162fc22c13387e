/** The shapes of the API answers the panel reads (the server's OpenAPI document has them all). */
import type { LiveServerFrame } from '../../protocol/live.js';

export type Role = 'viewer' | 'agent' | 'admin' | 'owner';
export type Presence = 'online' | 'away' | 'offline';

export interface User { id: string; name: string; email: string; role: Role; presence: Presence; presenceAt: number; createdAt: number }
export interface Me { user: User; workspace: { id: string; name: string }; csrfToken: string }
export interface Page<T> { items: T[]; nextBefore: string | null }

export interface BotSummary {
  id: string; name: string; status: 'running' | 'paused'; revision: number;
  publishedVersion: number | null; publishedAt: number | null; createdAt: number; updatedAt: number;
}
export interface Bot extends BotSummary { published: { version: number; publishedAt: number } | null; versions: Array<{ version: number; publishedAt: number }> }
export interface Template { id: string; name: string; description: string }
export interface Embed { botId: string; scriptUrl: string; layout: string; published: boolean; snippets: Record<string, string> }

export interface ConversationSummary {
  id: string; botId: string; visitorId: string; status: 'open' | 'ended'; endReason: string | null; tags: string[];
  takenOverBy: { userId: string; userName: string } | null; messageCount: number; page: { url: string; title: string };
  createdAt: number; lastMessageAt: number;
}
export interface Message {
  id: string; seq: number; role: 'user' | 'assistant' | 'human_agent' | 'system_event'; text: string;
  modality: 'text' | 'voice'; createdAt: number; authorName: string | null; visibility: string;
}
export interface Transcript extends ConversationSummary { summary: string | null; messages: Message[] }

export interface Lead { id: string; botId: string; conversationId: string | null; fields: Record<string, string>; status: string; source: string; createdAt: number }
export interface Invite { id: string; email: string; role: Role; createdAt: number; expiresAt: number; invitedBy: { id: string; name: string } }
export interface Token { id: string; name: string; scopes: string[]; role: Role; createdAt: number; expiresAt: number | null; lastUsedAt: number | null }

/** A frame of the live socket ({ type, data }: protocol/live.ts) and when it came. */
export type LiveEvent = LiveServerFrame & { receivedAt: number };
/** A live event of one type. */
export type LiveEventOf<T extends LiveEvent['type']> = Extract<LiveEvent, { type: T }>;
