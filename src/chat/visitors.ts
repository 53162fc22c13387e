import type { AppContext } from '../app/context.js';
import { ApiError, unauthorized } from '../kernel/errors.js';
import { newId } from '../store/ids.js';
import type { ChatBot } from '../bots/bot-source.js';
import { readVisitorToken, signVisitorToken, verifyIdentity } from './identity.js';
import { wasErased } from '../visitors/erased.js';

export interface VisitorIdentityInput {
  visitorToken?: string | null;
  userId?: string | null;
  userHash?: string | null;
  name?: string | null;
  email?: string | null;
}

export interface ResolvedVisitor {
  visitorId: string;
  visitorToken: string;
  verified: boolean;
  /** The visitor was here before (their conversations may resume); false for an id made for this connect. */
  known: boolean;
  name?: string;
  email?: string;
}

/**
 * Who the visitor is, per security.identity.mode. A verified visitor (valid userHash) is found by their
 * userId; anyone else gets an anonymous visitor id from their visitor token. A token that belongs to a
 * verified visitor is never accepted without the hash, so a forged or missing hash cannot reach that
 * visitor's conversations (to read or to send).
 */
export async function resolveVisitor(app: AppContext, chat: ChatBot, input: VisitorIdentityInput): Promise<ResolvedVisitor> {
  const { visitors } = app.records;
  const mode = chat.config.security.identity.mode;
  const workspaceId = chat.bot.workspaceId;
  const now = app.clock.now();
  const token = (id: string) => signVisitorToken(app.secretKey, chat.bot._id, id);
  const name = input.name?.slice(0, 120) || undefined;
  const email = input.email?.slice(0, 254) || undefined;

  if (mode !== 'off' && input.userId) {
    const userId = input.userId.slice(0, 256);
    if (verifyIdentity(chat.bot.identitySecret, userId, input.userHash ?? '')) {
      const set = { lastSeenAt: now, ...(name ? { name } : {}), ...(email ? { email } : {}) };
      const found = await visitors.updateOne({ workspaceId, userId }, {
        $set: set, $setOnInsert: { _id: newId('vis', now), createdAt: now, ...(name ? {} : { name: null }), ...(email ? {} : { email: null }) },
      }, { upsert: true });
      if (!found) throw new ApiError('internal', 500, 'visitor record could not be saved');
      return { visitorId: found._id, visitorToken: token(found._id), verified: true, known: true, name: found.name ?? undefined, email: found.email ?? undefined };
    }
    if (mode === 'required') throw unauthorized('identity: userHash does not match userId (security.identity.mode is required)');
  } else if (mode === 'required') {
    throw unauthorized('identity: this bot needs a verified visitor: send userId and userHash (security.identity.mode is required)');
  }

  // A returning visitor: their record's last visit, in the one call that also reads it (an anonymous record only:
  // a verified visitor's id is opened by their hash alone, so a token for one starts a new visitor).
  const known = readVisitorToken(app.secretKey, chat.bot._id, input.visitorToken);
  if (known) {
    if (await visitors.updateOne({ workspaceId, _id: known, userId: null }, { $set: { lastSeenAt: now } })) return { visitorId: known, visitorToken: token(known), verified: false, known: true };
    // No such anonymous record: a verified visitor's id, or a record that is gone (erased: a new visitor; else the
    // same id again, as a new record).
    const again = !(await visitors.findById(workspaceId, known)) && !(await wasErased(app, workspaceId, known));
    if (again) return anonymous(known, true);
  }
  return anonymous(newId('vis', now), false);

  async function anonymous(visitorId: string, known: boolean): Promise<ResolvedVisitor> {
    await visitors.updateOne({ workspaceId, _id: visitorId }, { $set: { lastSeenAt: now }, $setOnInsert: { createdAt: now, name: null, email: null } }, { upsert: true });
    return { visitorId, visitorToken: token(visitorId), verified: false, known };
  }
}
