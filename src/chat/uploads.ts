import type { AppContext } from '../app/context.js';
import type { Clock } from '../kernel/clock.js';
import { ApiError, badRequest, forbidden, invalid, rateLimited } from '../kernel/errors.js';
import { newId } from '../store/ids.js';
import { isImageTooLarge, sniffImageType } from '../../workers/image-types.js';
import { runTask } from '../../workers/pool.js';
import { readVisitorToken } from './identity.js';
import { wasErased } from '../visitors/erased.js';
import { originAllowed } from './origin.js';
import { loadWidgetBot } from './preview.js';
import type { ChatBotCache } from '../bots/chat-bot-cache.js';
import { takeShared, type SharedLimits } from '../scale/limits.js';
import { RateLimiter } from '../security/rate-limiter.js';
import { type AttachmentRecord } from '../records/conversations.js';

/** Chat images are shrunk to this longest edge before they are stored and sent to the model (bot-config.md). */
export const UPLOAD_MAX_EDGE_PX = 1568;
/** vision.uploads.maxMB is at most 25. */
export const UPLOAD_BODY_LIMIT_BYTES = 25 * 1024 * 1024;

/** uploadsPerHour per visitor; counted across the group when scaled out (src/scale/limits.ts). The root makes one. */
export class UploadLimits {
  private readonly local: RateLimiter;
  constructor(clock: Clock, private readonly shared: SharedLimits | null) { this.local = new RateLimiter(clock, 3600_000); }
  /** 0 when the visitor may upload one more image of this bot, else milliseconds to wait. */
  take(botId: string, visitorId: string, perHour: number): Promise<number> {
    return takeShared(this.shared, this.local, 'upl', `${botId}|${visitorId}`, perHour, 3600_000);
  }
}

/**
 * A widget image upload (the draft's settings with a preview token): the bot takes images (vision.uploads and a brain that can see), the visitor token
 * is valid, size within maxMB, magic bytes name an image, uploadsPerHour per visitor; then resized in the
 * worker pool and stored. The attachment is claimed by the message that names it.
 */
export async function acceptUpload(app: AppContext, { uploadLimits: limits, chatBots }: { uploadLimits: UploadLimits; chatBots: ChatBotCache }, input: { botId: string; visitorToken: string; preview?: string; origin?: string; body: Buffer; signal: AbortSignal }): Promise<AttachmentRecord> {
  const chat = await loadWidgetBot(app, chatBots, input.botId, input.preview);
  if (!chat.preview && !originAllowed(input.origin, chat.config.security.allowedOrigins)) throw forbidden('origin is not allowed to embed this bot (security.allowedOrigins)');
  const visitorId = readVisitorToken(app.secretKey, chat.bot._id, input.visitorToken);
  if (!visitorId) throw new ApiError('unauthorized', 401, 'visitorToken: missing or not valid for this bot (take it from the ready frame)');
  if (await wasErased(app, chat.bot.workspaceId, visitorId)) throw new ApiError('unauthorized', 401, 'visitorToken: this visitor was erased; reconnect the chat socket for a new token');
  const uploads = chat.config.vision.uploads;
  if (!uploads.enabled || !chat.brain?.canSee) throw forbidden('this bot does not take images (vision.uploads.enabled, and a brain that can see)');
  if (input.body.length === 0) throw badRequest('body: send the image bytes');
  if (input.body.length > uploads.maxMB * 1024 * 1024) throw new ApiError('payload_too_large', 413, `image is larger than ${uploads.maxMB} MB (vision.uploads.maxMB)`);
  const type = sniffImageType(input.body);
  if (!type) throw invalid('body: not a JPEG, PNG, WebP or GIF image');
  const wait = await limits.take(chat.bot._id, visitorId, chat.config.security.rateLimits.uploadsPerHour);
  if (wait > 0) throw rateLimited(wait / 1000, `too many images; at most ${chat.config.security.rateLimits.uploadsPerHour} an hour (security.rateLimits.uploadsPerHour)`);

  let out;
  try {
    out = await runTask('resize-image', { data: input.body, maxEdgePx: UPLOAD_MAX_EDGE_PX }, { signal: input.signal });
  } catch (err) {
    if (input.signal.aborted) throw err;
    // Its size in pixels and the limit, said as they are: a photo too large is not a damaged one.
    if (isImageTooLarge(err)) throw invalid(`body: ${err.message}`);
    // The image library's words stay in the log: they mean nothing to a visitor and describe our internals.
    app.log.info({ err: (err as Error).message }, 'upload: image could not be read');
    throw invalid('body: the image could not be read (a damaged file, or a format this server cannot decode)');
  }
  const now = app.clock.now();
  const rec: AttachmentRecord = {
    _id: newId('att', now), workspaceId: chat.bot.workspaceId, botId: chat.bot._id, visitorId, conversationId: null,
    mimeType: out.mimeType, width: out.width, height: out.height, size: out.data.length, createdAt: now,
  };
  await app.store.files.put(rec._id, out.data, { workspaceId: rec.workspaceId, contentType: rec.mimeType, size: rec.size, kind: 'chat-attachment' });
  await app.records.attachments.insertOne(rec);
  return rec;
}
