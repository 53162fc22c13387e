/**
 * ServiceChat.skinFromPhoto(image) (docs/faces.md, Making a face from a photo): finds the face's 468 landmarks in
 * the browser with MediaPipe Face Mesh and returns what POST /api/v1/faces takes. This file is its own bundle,
 * loaded only when the function is called; MediaPipe's script, wasm and model come from this server
 * (/widget/v1/face-mesh/, served from the @mediapipe/face_mesh package), never from a CDN.
 */

export interface FacePhoto {
  name: string;
  /** Base64 JPEG of the photo (at most FACE_EDGE_PX on its longest side). */
  image: string;
  /** 468 points [x, y, z]: x and y fractions of the image's width and height, z depth on about x's scale. */
  landmarks: Array<[number, number, number]>;
}

export type FacePhotoErrorCode = 'bad_image' | 'too_small' | 'no_face' | 'several_faces' | 'unavailable';

/** The error skinFromPhoto rejects with; `code` is stable, the message says what to do. */
export class FacePhotoError extends Error {
  constructor(readonly code: FacePhotoErrorCode, message: string) {
    super(message);
    this.name = 'FacePhotoError';
  }
}

export type PhotoInput = Blob | HTMLImageElement | HTMLCanvasElement | ImageBitmap | string;

export const LANDMARKS = 468;
/** The server shrinks face images to 1024 px; sending more is wasted bytes. */
const FACE_EDGE_PX = 1024;
/** The shorter side of a photo below this gives a blurry face. */
const MIN_PHOTO_PX = 128;
/** The face must span at least this many pixels across (eye corner to eye corner and beyond). */
const MIN_FACE_PX = 96;

const W = window as any;
let mesh: Promise<any> | null = null;

/** Loads MediaPipe's script once and starts a Face Mesh for still photos (the model files come on first use). */
function faceMesh(base: string): Promise<any> {
  const dir = `${base}/widget/v1/face-mesh/`;
  return mesh ??= new Promise<void>((resolve, reject) => {
    if (W.FaceMesh) return resolve();
    const s = document.createElement('script');
    s.src = `${dir}face_mesh.js`;
    s.crossOrigin = 'anonymous';
    s.onload = () => resolve();
    s.onerror = () => reject(new FacePhotoError('unavailable', `the face finder could not be loaded from ${dir}; check that the chat server is reachable`));
    document.head.append(s);
  }).then(async () => {
    const fm = new W.FaceMesh({ locateFile: (file: string) => dir + file });
    // refineLandmarks off: the 468-point mesh (on, MediaPipe adds 10 iris points).
    fm.setOptions({ staticImageMode: true, maxNumFaces: 2, refineLandmarks: false, minDetectionConfidence: 0.5, minTrackingConfidence: 0.5 });
    await fm.initialize();
    return fm;
  }).catch((err) => {
    mesh = null;
    throw err instanceof FacePhotoError ? err : new FacePhotoError('unavailable', `the face finder could not start: ${(err as Error)?.message ?? err}`);
  });
}

/** Decodes any accepted input into a canvas of at most FACE_EDGE_PX on its longest side. */
async function toCanvas(input: PhotoInput): Promise<HTMLCanvasElement> {
  let source: CanvasImageSource & { width: number; height: number };
  try {
    if (typeof input === 'string') {
      const img = new Image();
      img.crossOrigin = 'anonymous';
      img.src = input;
      await img.decode();
      source = img;
    } else if (input instanceof Blob) {
      source = await createImageBitmap(input);
    } else if (input instanceof HTMLImageElement) {
      if (!input.complete || !input.naturalWidth) await input.decode();
      source = input;
    } else source = input;
  } catch {
    throw new FacePhotoError('bad_image', 'that is not a picture this browser can read; use a JPEG, PNG or WebP photo');
  }
  const w = source instanceof HTMLImageElement ? source.naturalWidth : source.width;
  const h = source instanceof HTMLImageElement ? source.naturalHeight : source.height;
  if (!w || !h) throw new FacePhotoError('bad_image', 'the picture is empty; use a JPEG, PNG or WebP photo');
  if (Math.min(w, h) < MIN_PHOTO_PX) throw new FacePhotoError('too_small', `the photo is ${w}x${h} pixels; use one at least ${MIN_PHOTO_PX} pixels on each side`);
  const scale = Math.min(1, FACE_EDGE_PX / Math.max(w, h));
  const canvas = document.createElement('canvas');
  canvas.width = Math.round(w * scale);
  canvas.height = Math.round(h * scale);
  canvas.getContext('2d')!.drawImage(source, 0, 0, canvas.width, canvas.height);
  return canvas;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** Finds one face in `input` and returns the upload for POST /api/v1/faces. */
export async function skinFromPhoto(input: PhotoInput, opts: { base: string; name?: string }): Promise<FacePhoto> {
  if (input == null) throw new FacePhotoError('bad_image', 'skinFromPhoto needs a photo: a File or Blob, an <img>, a canvas, an ImageBitmap or an image URL');
  const canvas = await toCanvas(input);
  const fm = await faceMesh(opts.base);
  const results: any = await new Promise((resolve, reject) => {
    fm.onResults(resolve);
    fm.send({ image: canvas }).catch(reject);
  }).catch((err) => {
    // A wasm abort leaves the instance unusable: the next call starts a fresh one.
    mesh = null;
    throw new FacePhotoError('unavailable', `the face finder failed: ${(err as Error)?.message ?? err}`);
  });
  const found: Array<Array<{ x: number; y: number; z: number }>> = results?.multiFaceLandmarks ?? [];
  if (!found.length) throw new FacePhotoError('no_face', 'no face was found in the photo; use a clear, well-lit photo of one face looking at the camera');
  if (found.length > 1) throw new FacePhotoError('several_faces', `${found.length} faces were found; crop the photo to the one face you want`);
  const points = found[0];
  if (points.length < LANDMARKS) throw new FacePhotoError('unavailable', `the face finder returned ${points.length} points instead of ${LANDMARKS}`);
  const xs = points.map((p) => p.x * canvas.width);
  const span = Math.max(...xs) - Math.min(...xs);
  if (span < MIN_FACE_PX) throw new FacePhotoError('too_small', `the face is only ${Math.round(span)} pixels wide in the photo; use a closer photo where it is at least ${MIN_FACE_PX}`);
  const landmarks = points.slice(0, LANDMARKS).map((p) => [clamp(p.x, 0, 1), clamp(p.y, 0, 1), clamp(p.z, -1, 1)] as [number, number, number]);
  const image = canvas.toDataURL('image/jpeg', 0.9).split(',')[1];
  const name = (opts.name ?? (input instanceof File ? input.name.replace(/\.[^.]+$/, '') : '') ?? '').trim().slice(0, 80) || 'Custom face';
  return { name, image, landmarks };
}
