/**
 * Custom faces (service-api.md, Custom faces): a photo plus the 468 face-mesh landmarks the widget's
 * skinFromPhoto produced. The image is checked (magic bytes, size, pixels) and resized in the worker pool,
 * stored in app.store.files under the face id; the record keeps the landmarks.
 */
import { z } from 'zod';
import type { AppContext } from '../app/context.js';
import { ApiError, invalid, notFound } from '../kernel/errors.js';
import { botsUsing, customFaceOf } from '../bots/records.js';
import { newId } from '../store/ids.js';
import type { Doc } from '../store/types.js';
import { sniffImageType } from '../../workers/image-types.js';
import { runTask } from '../../workers/pool.js';

export const LANDMARK_COUNT = 468;
export const MAX_FACE_IMAGE_BYTES = 5 * 1024 * 1024;
/** Stored images are shrunk to this longest edge: plenty for a face texture, small for the widget. */
export const FACE_IMAGE_EDGE_PX = 1024;
/** Below this the landmarks cannot map a usable texture. */
export const MIN_FACE_IMAGE_PX = 64;

/** x and y are fractions of the image width and height; z is depth on about the same scale as x. */
const Landmark = z.tuple([z.number().min(0).max(1), z.number().min(0).max(1), z.number().min(-1).max(1)]);

export const FaceUploadBody = z.strictObject({
  name: z.string().trim().min(1).max(80),
  /** Base64 (or a data: URL) of a JPEG, PNG, WebP or GIF. */
  image: z.string().min(1).max(Math.ceil(MAX_FACE_IMAGE_BYTES / 3) * 4 + 64, `larger than ${MAX_FACE_IMAGE_BYTES / 1024 / 1024} MB`),
  landmarks: z.array(Landmark).length(LANDMARK_COUNT, `must hold exactly ${LANDMARK_COUNT} points, each [x, y, z]`),
});
export type FaceUpload = z.infer<typeof FaceUploadBody>;

export interface FaceRecord extends Doc {
  name: string;
  landmarks: Array<[number, number, number]>;
  image: { contentType: string; width: number; height: number; size: number };
  createdAt: number;
}

export const faces = (app: AppContext) => app.store.collection<FaceRecord>('faces');

export function faceView(app: AppContext, f: FaceRecord) {
  const base = `${app.config.publicUrl}/api/v1/faces/${f._id}`;
  return {
    id: f._id, name: f.name, createdAt: f.createdAt,
    width: f.image.width, height: f.image.height, contentType: f.image.contentType,
    imageUrl: `${base}/image`, landmarksUrl: `${base}/landmarks`,
  };
}

function decodeImage(text: string): Buffer {
  const b64 = text.replace(/^data:[\w/+.-]+;base64,/, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(b64)) throw invalid('image: not base64 text', [{ path: 'image', message: 'not base64 text' }]);
  const data = Buffer.from(b64, 'base64');
  if (data.length === 0) throw invalid('image: empty', [{ path: 'image', message: 'empty' }]);
  if (data.length > MAX_FACE_IMAGE_BYTES) {
    throw invalid(`image: larger than ${MAX_FACE_IMAGE_BYTES / 1024 / 1024} MB`, [{ path: 'image', message: 'too large' }]);
  }
  return data;
}

const imageProblem = (message: string) => invalid(`image: ${message}`, [{ path: 'image', message }]);

export async function createFace(app: AppContext, workspaceId: string, input: FaceUpload): Promise<FaceRecord> {
  const data = decodeImage(input.image);
  // Refused here, before any work is queued: the type comes from the bytes, never from a name or header.
  if (!sniffImageType(data)) throw imageProblem('not a JPEG, PNG, WebP or GIF image');
  let resized;
  try {
    resized = await runTask('resize-image', { data, maxEdgePx: FACE_IMAGE_EDGE_PX });
  } catch (err) {
    if (err instanceof RangeError) throw imageProblem(err.message);
    if (err instanceof Error && (err as { code?: string }).code === 'pool_busy') throw new ApiError('rate_limited', 429, 'the server is busy with images; try again shortly', { 'Retry-After': '5' });
    throw imageProblem('cannot be read as an image (damaged or unsupported)');
  }
  if (Math.min(resized.width, resized.height) < MIN_FACE_IMAGE_PX) {
    throw imageProblem(`too small: at least ${MIN_FACE_IMAGE_PX} pixels on each side, got ${resized.width}x${resized.height}`);
  }
  const now = app.clock.now();
  const id = newId('face', now);
  const image = { contentType: resized.mimeType, width: resized.width, height: resized.height, size: resized.data.length };
  await app.store.files.put(id, resized.data, { workspaceId, contentType: image.contentType, size: image.size, kind: 'face' });
  const record: FaceRecord = { _id: id, workspaceId, name: input.name, landmarks: input.landmarks, image, createdAt: now };
  await faces(app).insertOne(record);
  return record;
}

export async function listFaces(app: AppContext, workspaceId: string): Promise<FaceRecord[]> {
  return faces(app).find({ workspaceId }, { limit: 1000 });
}

/** Refused with 409 while a bot's draft or published face.skin uses it, so a live face cannot vanish. */
export async function deleteFace(app: AppContext, workspaceId: string, id: string): Promise<void> {
  const face = await faces(app).findById(workspaceId, id);
  if (!face) throw notFound('face');
  const used = await botsUsing(app, workspaceId, (c) => customFaceOf(c) === id);
  if (used.length) {
    throw new ApiError('conflict', 409, `this face is used by ${used.length} bot(s): ${used.map((b) => b.name).join(', ')}; choose another face in them (draft and published) first`, {}, { bots: used });
  }
  await faces(app).deleteOne({ workspaceId, _id: id });
  await app.store.files.delete(workspaceId, id);
}

/** A face by id alone: the widget on a visitor's page knows only the id from the bot's config. */
export async function findFacePublic(app: AppContext, id: string): Promise<FaceRecord | null> {
  return faces(app).findOne({ _id: id }, { crossWorkspace: true });
}
