/**
 * A synthetic face photo for the custom-face tests: painted in the browser (a 512 px portrait) with 468
 * landmarks placed where MediaPipe Face Mesh puts them on a face (eyes, lids, brows, lips, oval by their
 * MediaPipe indices; the other points spread over the face), so the engine's mesh, blinks and mouth can be
 * checked without a real photo.
 */
import type { Page } from 'playwright-core';
import { BROWS, EYES, LIPS_IN_LOW, LIPS_IN_UP, LIPS_OUT_LOW, LIPS_OUT_UP, OVAL } from '../../widget/src/face/mesh.js';

export const SIZE = 512;
const C = { x: 256, y: 270, rx: 150, ry: 190 };
const EYE = { dx: 62, y: 236, w: 34, h: 13 };
const MOUTH = { y: 352, w: 52 };

/** [x, y, z] fractions of the image, 468 of them. */
export function syntheticLandmarks(): Array<[number, number, number]> {
  const p: Array<[number, number] | undefined> = new Array(468);
  OVAL.forEach((i, k) => { const a = (k / OVAL.length) * Math.PI * 2; p[i] = [C.x + Math.sin(a) * C.rx, C.y - Math.cos(a) * C.ry]; });
  EYES.forEach((eye, e) => {
    const cx = C.x + (e ? 1 : -1) * EYE.dx, dir = e ? -1 : 1;
    const n = eye.up.length;
    for (let k = 0; k < n; k++) {
      const t = k / (n - 1), x = cx + dir * (t * 2 - 1) * EYE.w;
      p[eye.up[k]] = [x, EYE.y - Math.sin(t * Math.PI) * EYE.h];
      p[eye.low[k]] = [x, EYE.y + Math.sin(t * Math.PI) * EYE.h * 0.8];
    }
    eye.crease.forEach((i, k) => { const t = (k + 1) / (eye.crease.length + 1); p[i] = [cx + dir * (t * 2 - 1) * EYE.w * 1.05, EYE.y - Math.sin(t * Math.PI) * EYE.h - 10]; });
  });
  BROWS.forEach((brow, b) => {
    const dir = b ? -1 : 1, outer = C.x + (b ? 1 : -1) * 104;
    for (let k = 0; k < 5; k++) {
      const x = outer + dir * k * 18, arch = Math.sin(((k + 0.5) / 5) * Math.PI) * 8;
      p[brow[k]] = [x, 196 - arch];
      p[brow[k + 5]] = [x, 206 - arch];
    }
  });
  const lip = (ids: number[], w: number, f: (t: number) => number) => ids.forEach((i, k) => { const t = k / (ids.length - 1); p[i] = [C.x + (t * 2 - 1) * w, MOUTH.y + f(t)]; });
  lip(LIPS_OUT_UP, MOUTH.w, (t) => -Math.sin(t * Math.PI) * 14);
  lip(LIPS_OUT_LOW, MOUTH.w, (t) => Math.sin(t * Math.PI) * 16);
  lip(LIPS_IN_UP, MOUTH.w * 0.86, (t) => -Math.sin(t * Math.PI) * 1.2);
  lip(LIPS_IN_LOW, MOUTH.w * 0.86, (t) => Math.sin(t * Math.PI) * 1.2);
  // Everything else: spread over the face, clear of the features already placed.
  const placed = p.filter(Boolean) as Array<[number, number]>;
  const free: Array<[number, number]> = [];
  for (let step = 14; free.length < 468 - placed.length; step -= 1) {
    free.length = 0;
    for (let y = C.y - C.ry; y <= C.y + C.ry; y += step) for (let x = C.x - C.rx; x <= C.x + C.rx; x += step) {
      const jx = x + ((y * 7) % 5) - 2, jy = y + ((x * 3) % 5) - 2;
      if (((jx - C.x) / (C.rx * 0.93)) ** 2 + ((jy - C.y) / (C.ry * 0.93)) ** 2 > 1) continue;
      if (placed.some(([px, py]) => Math.hypot(px - jx, py - jy) < step * 0.8)) continue;
      free.push([jx, jy]);
    }
  }
  const need = 468 - placed.length;
  let f = 0;
  for (let i = 0; i < 468; i++) if (!p[i]) p[i] = free[Math.floor((f++ * free.length) / need)];
  return p.map((q) => [q![0] / SIZE, q![1] / SIZE, 0]);
}

/** The painted portrait as a PNG data URL (drawn in `page`). */
export function paintPortrait(page: Page): Promise<string> {
  return page.evaluate(({ S, C, EYE, MOUTH }) => {
    const c = document.createElement('canvas');
    c.width = c.height = S;
    const g = c.getContext('2d')!;
    const bg = g.createLinearGradient(0, 0, 0, S);
    bg.addColorStop(0, '#dbeafe'); bg.addColorStop(1, '#93c5fd');
    g.fillStyle = bg; g.fillRect(0, 0, S, S);
    g.fillStyle = '#2563eb'; g.beginPath(); g.ellipse(256, 560, 230, 120, 0, 0, Math.PI * 2); g.fill();
    g.fillStyle = '#d9a07f'; g.fillRect(206, 400, 100, 120);
    g.fillStyle = '#3b2a20'; g.beginPath(); g.ellipse(C.x, C.y - 40, C.rx + 22, C.ry + 10, 0, 0, Math.PI * 2); g.fill();
    const skin = g.createRadialGradient(C.x - 40, C.y - 60, 20, C.x, C.y, C.ry);
    skin.addColorStop(0, '#f6c9a8'); skin.addColorStop(1, '#d59a76');
    g.fillStyle = skin; g.beginPath(); g.ellipse(C.x, C.y, C.rx, C.ry, 0, 0, Math.PI * 2); g.fill();
    g.fillStyle = '#3b2a20'; g.beginPath(); g.ellipse(C.x, C.y - C.ry + 40, C.rx + 4, 70, 0, Math.PI, Math.PI * 2); g.fill();
    for (const s of [-1, 1]) {
      const cx = C.x + s * EYE.dx;
      // The eye as its landmarks trace it (the lids' margins, as Face Mesh places them on a photo): the white and
      // the iris end at the lids.
      g.save(); g.beginPath();
      for (let k = 0; k <= 32; k++) { const t = k / 32; g.lineTo(cx + (t * 2 - 1) * EYE.w, EYE.y - Math.sin(t * Math.PI) * EYE.h * 0.97); }
      for (let k = 32; k >= 0; k--) { const t = k / 32; g.lineTo(cx + (t * 2 - 1) * EYE.w, EYE.y + Math.sin(t * Math.PI) * EYE.h * 0.8 * 0.95); }
      g.clip();
      g.fillStyle = '#fff'; g.fillRect(cx - EYE.w, EYE.y - EYE.h, EYE.w * 2, EYE.h * 2);
      g.fillStyle = '#4b6b3a'; g.beginPath(); g.arc(cx, EYE.y, 11, 0, Math.PI * 2); g.fill();
      g.fillStyle = '#111'; g.beginPath(); g.arc(cx, EYE.y, 5, 0, Math.PI * 2); g.fill();
      g.restore();
      g.strokeStyle = '#3b2a20'; g.lineWidth = 3; g.beginPath(); g.ellipse(cx, EYE.y, EYE.w, EYE.h, 0, Math.PI, Math.PI * 2); g.stroke();
      g.lineWidth = 9; g.lineCap = 'round'; g.beginPath(); g.moveTo(cx - s * 42, 196); g.quadraticCurveTo(cx - s * 6, 182, cx + s * 30, 198); g.stroke();
    }
    g.strokeStyle = '#b97c5c'; g.lineWidth = 4; g.beginPath(); g.moveTo(252, 260); g.quadraticCurveTo(240, 300, 258, 306); g.stroke();
    g.fillStyle = '#b4475e'; g.beginPath(); g.moveTo(C.x - MOUTH.w, MOUTH.y); g.quadraticCurveTo(C.x, MOUTH.y - 30, C.x + MOUTH.w, MOUTH.y); g.quadraticCurveTo(C.x, MOUTH.y + 34, C.x - MOUTH.w, MOUTH.y); g.fill();
    g.strokeStyle = '#5b1726'; g.lineWidth = 3; g.beginPath(); g.moveTo(C.x - MOUTH.w, MOUTH.y); g.quadraticCurveTo(C.x, MOUTH.y + 4, C.x + MOUTH.w, MOUTH.y); g.stroke();
    return c.toDataURL('image/png');
  }, { S: SIZE, C, EYE, MOUTH });
}
