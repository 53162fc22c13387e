/**
 * What a new voice session counts against, and what a visitor reads when one is full: the bot's own cap
 * (security.caps.concurrentVoiceSessions), the visitor's sessions across every bot (VOICE_SESSIONS_PER_VISITOR) and
 * the address's (VOICE_SESSIONS_PER_ADDRESS), so one address cannot hold a paid engine session on each bot.
 */
import ipaddr from 'ipaddr.js';
import type { AppContext } from '../../src/app/context.js';
import type { VoiceSeatClaim } from '../../src/scale/voice-seats.js';

/** Which limit refused a start: the error frame's `limit`, so the widget says it in the visitor's language. */
export type VoiceLimit = 'bot' | 'visitor' | 'address';
export interface VoiceLimitClaim extends VoiceSeatClaim { limit: VoiceLimit }

/**
 * The address a limit counts: an IPv4 address as it is, an IPv6 one by its /64 network (one household or phone
 * gets a whole /64 and could otherwise take a new address for each session); an IPv4-mapped IPv6 as its IPv4.
 */
export function addressGroup(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  let addr = ipaddr.parse(ip);
  if (addr instanceof ipaddr.IPv6 && addr.isIPv4MappedAddress()) addr = addr.toIPv4Address();
  if (addr instanceof ipaddr.IPv4) return addr.toString();
  const parts = addr.toNormalizedString().split(':').slice(0, 4);
  return `${parts.map((p) => p.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

/** The session's claims, in the order they are checked; a limit of 0 set by the operator is none. */
export function voiceClaims(app: AppContext, s: { botId: string; botMax: number; visitorId: string; ip: string }): VoiceLimitClaim[] {
  const { voiceSessionsPerVisitor: perVisitor, voiceSessionsPerAddress: perAddress } = app.config;
  const claims: VoiceLimitClaim[] = [{ limit: 'bot', scope: s.botId, max: s.botMax }];
  if (perVisitor > 0) claims.push({ limit: 'visitor', scope: `visitor:${s.visitorId}`, max: perVisitor });
  if (perAddress > 0 && s.ip) claims.push({ limit: 'address', scope: `address:${addressGroup(s.ip)}`, max: perAddress });
  return claims;
}

const many = (n: number) => `${n} voice conversation${n === 1 ? '' : 's'}`;

/** The error frame's English line (the widget shows its own words for `limit` visitor and address). */
export function busyMessage(c: VoiceLimitClaim): string {
  switch (c.limit) {
    case 'bot': return `this assistant is already in ${c.max} voice conversation(s) (security.caps.concurrentVoiceSessions); try again in a minute, or keep typing`;
    case 'visitor': return `you are already in ${many(c.max)} at once (VOICE_SESSIONS_PER_VISITOR); end one (in another tab or window) to talk here, or keep typing`;
    case 'address': return `there are already ${many(c.max)} from this address at once (VOICE_SESSIONS_PER_ADDRESS); try again in a few minutes, or keep typing`;
  }
}
