/**
 * A custom face's mesh: the 468 MediaPipe Face Mesh landmarks (in image pixels) plus a ring and the image's
 * edges as fixed anchors, triangulated once; deform() moves the points for a frame. Motion fades to nothing at
 * the anchors, so triangles stretch instead of tearing at the mesh's edges. Indices are MediaPipe's.
 */
import { delaunay } from './delaunay.js';
import type { Frame } from './motion.js';

export const OVAL = [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377, 152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109];
export const LIPS_OUT_UP = [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291];
export const LIPS_OUT_LOW = [61, 146, 91, 181, 84, 17, 314, 405, 321, 375, 291];
export const LIPS_IN_UP = [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308];
export const LIPS_IN_LOW = [78, 95, 88, 178, 87, 14, 317, 402, 318, 324, 308];
/** Upper lid, then lower lid, corner to corner, for each eye (the image's left eye first). */
export const EYES = [
  { up: [33, 246, 161, 160, 159, 158, 157, 173, 133], low: [33, 7, 163, 144, 145, 153, 154, 155, 133], crease: [247, 30, 29, 27, 28, 56, 190] },
  { up: [263, 466, 388, 387, 386, 385, 384, 398, 362], low: [263, 249, 390, 373, 374, 380, 381, 382, 362], crease: [467, 260, 259, 257, 258, 286, 414] },
];
/** Brows, outer end first; the last two are the inner end. */
export const BROWS = [[70, 63, 105, 66, 107, 46, 53, 52, 65, 55], [300, 293, 334, 296, 336, 276, 283, 282, 295, 285]];
const INNER_BROW = new Set([107, 66, 55, 65, 336, 296, 285, 295]);

export interface Mesh {
  /** Rest positions (pixels): landmarks, then anchors. */
  rest: Float32Array;
  /** The photo's triangles, then the mouth's and the eyes' interiors drawn over them (see buildMesh). */
  tris: number[];
  /** Per triangle: inside the mouth (shown dark as the mouth opens). */
  inside: Uint8Array;
  /** Per triangle: between the eyelids (shown as lid skin as the eye shuts). */
  lid: Uint8Array;
  /** Per point: where the lid skin over it is in the photo (pixels); the point's own place elsewhere. */
  skin: Float32Array;
  /** What deform() needs, per point. */
  jaw: Float32Array; head: Float32Array; smile: Float32Array;
  lids: Array<{ up: number[]; low: number[]; crease: number[] }>;
  center: [number, number]; pivot: [number, number]; fh: number; mouthY: number;
  /** The square of the image the face is shown in (pixels). */
  crop: { x: number; y: number; s: number };
}

export function buildMesh(lm: ReadonlyArray<readonly number[]>, w: number, h: number): Mesh {
  const pts: Array<[number, number]> = lm.map(([x, y], i) => [x * w + (i % 7) * 1e-4, y * h + (i % 5) * 1e-4]);
  const xs = OVAL.map((i) => pts[i][0]), ys = OVAL.map((i) => pts[i][1]);
  const cx = (Math.min(...xs) + Math.max(...xs)) / 2, cy = (Math.min(...ys) + Math.max(...ys)) / 2;
  const rx = (Math.max(...xs) - Math.min(...xs)) / 2, ry = (Math.max(...ys) - Math.min(...ys)) / 2;
  const fh = Math.hypot(pts[152][0] - pts[10][0], pts[152][1] - pts[10][1]) || ry * 2;
  const head = new Float32Array(lm.length).fill(1);
  // Anchors: a ring around the face (moves half as much: the hair and neck follow a little) and the image's edges.
  for (let k = 0; k < 28; k++) {
    const a = (k / 28) * Math.PI * 2;
    pts.push([cx + Math.cos(a) * rx * 1.45, cy + Math.sin(a) * ry * 1.35]);
  }
  for (let k = 0; k <= 4; k++) pts.push([(w * k) / 4, 0], [(w * k) / 4, h], [0, (h * k) / 4], [w, (h * k) / 4]);
  const all = new Float32Array(pts.length * 2);
  pts.forEach(([x, y], i) => { all[i * 2] = x; all[i * 2 + 1] = y; });
  const headW = new Float32Array(pts.length);
  headW.set(head);
  for (let k = lm.length; k < lm.length + 28; k++) headW[k] = 0.35;
  const tris = delaunay(pts);

  // The jaw: points below the mouth corners and inside the face, more toward the chin; the lower lip moves whole.
  const mouthY = (pts[61][1] + pts[291][1]) / 2, chinY = pts[152][1];
  const jaw = new Float32Array(pts.length);
  const smile = new Float32Array(pts.length);
  for (let i = 0; i < lm.length; i++) {
    const [x, y] = pts[i];
    const down = Math.max(0, Math.min(1, (y - mouthY) / Math.max(1, chinY - mouthY)));
    const side = Math.max(0, 1 - ((x - cx) / (rx * 1.05)) ** 2);
    jaw[i] = Math.pow(down, 0.6) * side;
    for (const c of [61, 291]) {
      const d = Math.hypot(x - pts[c][0], y - pts[c][1]) / (fh * 0.14);
      if (d < 1 && (1 - d) ** 2 > Math.abs(smile[i])) smile[i] = (1 - d) ** 2 * (x < cx ? -1 : 1);
    }
  }
  for (const i of [...LIPS_IN_LOW, ...LIPS_OUT_LOW]) jaw[i] = 1;
  for (const i of [61, 291, 78, 308]) jaw[i] = 0.45;
  for (const i of [...LIPS_IN_UP, ...LIPS_OUT_UP]) if (![61, 291, 78, 308].includes(i)) jaw[i] = -0.12;

  // Interiors: a strip between the upper and the lower inner contour, point k to point k, drawn over the photo's
  // triangles. The triangulation does not follow the contours, so some of its triangles join a lip to the other
  // lip or a lid to the other lid and stretch across the opening; the strips cover exactly the opening.
  const inside: number[] = [], lid: number[] = [];
  const strip = (a: number[], b: number[], flag: number[]) => {
    for (let k = 0; k + 1 < a.length; k++) {
      tris.push(a[k], b[k], a[k + 1], a[k + 1], b[k], b[k + 1]);
      flag.push(1, 1);
    }
  };
  const base = tris.length / 3;
  strip(LIPS_IN_UP, LIPS_IN_LOW, inside);
  while (lid.length < inside.length) lid.push(0);
  for (const eye of EYES) strip(eye.up, eye.low, lid);
  while (inside.length < lid.length) inside.push(0);
  // The lid skin over each point of an eye: halfway from the upper lid to the crease above it, the same for the
  // upper and the lower point, so a shut eye is one even lid.
  const skin = new Float32Array(all);
  for (const eye of EYES) {
    const crease = eye.crease.map((i) => pts[i]).sort((p, q) => p[0] - q[0]);
    const creaseY = (x: number) => {
      if (x <= crease[0][0]) return crease[0][1];
      for (let k = 1; k < crease.length; k++) if (x <= crease[k][0]) {
        const t = (x - crease[k - 1][0]) / Math.max(1e-6, crease[k][0] - crease[k - 1][0]);
        return crease[k - 1][1] + (crease[k][1] - crease[k - 1][1]) * t;
      }
      return crease[crease.length - 1][1];
    };
    eye.up.forEach((u, k) => {
      const [x, y] = pts[u];
      const sy = y + (Math.min(y, creaseY(x)) - y) * 0.5;
      for (const i of [u, eye.low[k]]) { skin[i * 2] = x; skin[i * 2 + 1] = sy; }
    });
  }
  const flags = (f: number[]) => { const a = new Uint8Array(tris.length / 3); a.set(f, base); return a; };
  const s = Math.min(Math.max(rx, ry) * 2.7, Math.max(w, h));
  return {
    rest: all, tris, inside: flags(inside), lid: flags(lid), skin, jaw, head: headW, smile,
    lids: EYES, center: [cx, cy], pivot: [cx, pts[152][1] + fh * 0.25], fh, mouthY,
    crop: { x: cx - s / 2, y: cy - s * 0.48, s },
  };
}

/** How far the upper lids are down, 0 open .. 1 shut (on the lower lid); an eye 90% closed is shut (asleep). */
export function lidClose(f: Frame): number {
  return Math.min(1, (1 - Math.max(0, Math.min(1, Math.min(1, f.open) * (1 - f.blink)))) / 0.9);
}

/** The points for this frame (pixels), into `out`. */
export function deform(m: Mesh, f: Frame, out: Float32Array): void {
  out.set(m.rest);
  const fh = m.fh;
  const open = Math.min(1, f.jaw + f.talk);
  const drop = open * fh * 0.085;
  for (let i = 0; i < m.jaw.length; i++) {
    const j = m.jaw[i], s = m.smile[i];
    if (j) out[i * 2 + 1] += j * drop;
    if (s) { out[i * 2] += s * f.smile * fh * 0.018; out[i * 2 + 1] -= Math.abs(s) * f.smile * fh * 0.022; }
  }
  // Eyelids: the upper lid slides toward the lower one (blink, sleepy), the lower lid rises (smiling squint).
  const close = lidClose(f);
  for (const eye of m.lids) {
    const n = eye.up.length;
    for (let k = 1; k < n - 1; k++) {
      const u = eye.up[k], l = eye.low[k];
      const ux = m.rest[u * 2], uy = m.rest[u * 2 + 1], lx = m.rest[l * 2], ly = m.rest[l * 2 + 1];
      const gap = ly - uy;
      out[l * 2 + 1] = ly - gap * f.squint * 0.3;
      out[u * 2] = ux + (lx - ux) * close;
      out[u * 2 + 1] = uy + (out[l * 2 + 1] - uy) * close;
    }
    for (const c of eye.crease) out[c * 2 + 1] += close * fh * 0.008;
  }
  for (const brow of BROWS) for (const i of brow) out[i * 2 + 1] -= (f.brow + (INNER_BROW.has(i) ? f.tilt : 0)) * fh * 0.0045;
  // The head: a small turn about the neck, breathing, and a lean toward where the eyes look.
  const a = ((f.head * 0.6 + f.gx * 1.5) * Math.PI) / 180, cos = Math.cos(a), sin = Math.sin(a);
  const [px, py] = m.pivot;
  const ty = f.breathe * fh * 0.006 + f.gy * fh * 0.006;
  for (let i = 0; i < m.head.length; i++) {
    const w = m.head[i];
    if (!w) continue;
    const x = out[i * 2] - px, y = out[i * 2 + 1] - py;
    out[i * 2] += ((x * cos - y * sin + px) - out[i * 2]) * w;
    out[i * 2 + 1] += ((x * sin + y * cos + py) - out[i * 2 + 1] + ty) * w;
  }
}
