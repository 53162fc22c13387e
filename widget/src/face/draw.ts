/**
 * Draws a catalogue face as SVG: the skin's static parts once, then per frame only the attributes that move
 * (eye and mouth shapes, brows, gaze, head). faceMarkup() is also the static picture (launcher, build).
 */
import type { Frame } from './motion.js';
import { POSES } from './moods.js';
import { skinOf, type Layout, type Look } from './skins.js';

const r1 = (n: number) => Math.round(n * 10) / 10;

/** An eye as two half-ellipses: the upper lid (t) and the lower lid (b, negative: a smiling crescent). */
function eyePath(cx: number, cy: number, w: number, h: number, t: number, b: number): string {
  const k = h * 1.33;
  const top = r1(cy - k * t), bot = r1(cy + k * b), x0 = r1(cx - w), x1 = r1(cx + w), y = r1(cy);
  return `M${x0} ${y}C${x0} ${top} ${x1} ${top} ${x1} ${y}C${x1} ${bot} ${x0} ${bot} ${x0} ${y}Z`;
}

interface Parts { eyes: string[]; clips: string[]; iris: string[]; shine: string[]; brows: string[]; mouth: string; head: string; cheek: number }

function parts(L: Layout, f: Frame): Parts {
  const lid = Math.max(0.04, Math.min(1.2, f.open) * (1 - f.blink));
  const low = lid * (1 - 2 * f.squint);
  // Solid eyes look where the visitor is by moving whole; eyes with whites move the iris inside.
  const shift = L.iris ? 0 : 1;
  const gx = Math.round(f.gx * 8) / 2.5, gy = Math.round(f.gy * 6) / 2.3;
  const eyes: string[] = [], iris: string[] = [], shine: string[] = [], brows: string[] = [];
  for (const side of [-1, 1]) {
    const cx = 100 + side * L.eyeX + gx * shift, cy = L.eyeY + gy * shift;
    eyes.push(eyePath(cx, cy, L.eyeW, L.eyeH, lid, low));
    iris.push(`translate(${r1(gx * 1.6)} ${r1(gy * 1.4)})`);
    shine.push(`translate(${r1(cx + L.eyeW * 0.38)} ${r1(cy - L.eyeH * 0.45 * lid)}) scale(${r1(Math.min(1, lid * 1.4))})`);
    // Inner brow ends rise with tilt (worry) or drop (focus); skew lifts one brow.
    const y = L.browY - f.brow - (side > 0 ? f.skew : 0) + (1 - Math.min(1, f.open)) * 3;
    brows.push(`translate(${100 + side * L.eyeX} ${r1(y)}) rotate(${r1(side * f.tilt * 3)})`);
  }
  const o = Math.min(1, f.jaw + f.talk * (1 - f.jaw * 0.5));
  const w = L.mouthW * f.wide * (1 - o * 0.22);
  const cy = L.mouthY, lift = f.smile * 6;
  // Cubic lips: a rounded opening (an "o" when narrow and open), a curved line when closed.
  const up = r1(cy + lift * 0.7 - o * 4), down = r1(cy + lift * 0.85 + o * 19 + 0.6), y0 = r1(cy - lift);
  const xl = r1(100 - w), xr = r1(100 + w), il = r1(100 - w * 0.55), ir = r1(100 + w * 0.55), ol = r1(100 - w * 0.8), or = r1(100 + w * 0.8);
  const mouth = `M${xl} ${y0}C${il} ${up} ${ir} ${up} ${xr} ${y0}C${or} ${down} ${ol} ${down} ${xl} ${y0}Z`;
  const head = `translate(0 ${r1(f.breathe * 1.5)}) rotate(${Math.round(f.head * 2) / 2} 100 170)`;
  return { eyes, clips: eyes, iris, shine, brows, mouth, head, cheek: 0.12 + f.blush * 0.5 };
}

export function faceMarkup(skinId: string, look: Look, u: string, frame?: Frame): string {
  const s = skinOf(skinId, look, u);
  const L = s.layout;
  const p = parts(L, frame ?? { ...POSES.content, blink: 0, breathe: 0, gx: 0, gy: 0, talk: 0 });
  const brow = `<path d="M${-L.browW} 2Q0 -3 ${L.browW} 2" fill="none" stroke="${L.brow}" stroke-width="${L.browWidth}" stroke-linecap="round"`;
  // Eyes with whites draw one path three times (white, clip for the iris, lid line) through <use>: one attribute per frame.
  const eye = (i: number) => L.iris
    ? `<defs><path id="${u}e${i}" class="fe${i}" d="${p.eyes[i]}"/></defs><clipPath id="${u}c${i}"><use href="#${u}e${i}"/></clipPath><use href="#${u}e${i}" fill="${L.eye}"/>
<g clip-path="url(#${u}c${i})"><g class="fi${i}" transform="${p.iris[i]}"><circle cx="${100 + (i ? 1 : -1) * L.eyeX}" cy="${L.eyeY}" r="6.6" fill="${look.pal.deep}"/><circle cx="${100 + (i ? 1 : -1) * L.eyeX}" cy="${L.eyeY}" r="3.2" fill="#111"/><circle cx="${100 + (i ? 1 : -1) * L.eyeX + 2.4}" cy="${L.eyeY - 2.4}" r="1.7" fill="#fff"/></g></g>
<use href="#${u}e${i}" fill="none" stroke="#2b1a14" stroke-width="2.2"/>`
    : `<path class="fe${i}" d="${p.eyes[i]}" fill="${L.eye}"/><circle class="fs${i}" r="3.4" fill="${L.shine}" fill-opacity=".9" transform="${p.shine[i]}"/>`;
  const cheeks = look.blush ? [-1, 1].map((sd) => `<ellipse cx="${100 + sd * L.cheekX}" cy="${L.cheekY}" rx="12" ry="7" fill="${L.cheek}"/>`).join('') : '';
  return `<svg viewBox="0 0 200 200" xmlns="http://www.w3.org/2000/svg" aria-hidden="true">${s.body ?? ''}<g class="fh" transform="${p.head}">${s.back}
<g class="fk" opacity="${r1(p.cheek)}">${cheeks}</g>${eye(0)}${eye(1)}${s.front ?? ''}
${brow} class="fb0" transform="${p.brows[0]}"/>${brow} class="fb1" transform="${p.brows[1]}"/>
<path class="fm" d="${p.mouth}" fill="${L.mouth}" stroke="${L.lips}" stroke-width="${L.lipWidth}" stroke-linejoin="round"/></g></svg>`;
}

/** The live SVG: keeps the elements that move and sets only what changed since the last frame. */
export class SvgFace {
  private els: Record<string, Element | null> = {};
  private last: Record<string, string> = {};
  private readonly L: Layout;

  constructor(private readonly host: Element, skinId: string, look: Look, u: string) {
    host.innerHTML = faceMarkup(skinId, look, u);
    this.L = skinOf(skinId, look, u).layout;
    for (const c of ['fh', 'fk', 'fm', 'fe0', 'fe1', 'fi0', 'fi1', 'fs0', 'fs1', 'fb0', 'fb1']) this.els[c] = host.querySelector(`.${c}`);
  }

  private set(cls: string, attr: string, value: string) {
    const key = cls + attr;
    if (this.last[key] === value) return;
    this.last[key] = value;
    this.els[cls]?.setAttribute(attr, value);
  }

  draw(f: Frame): void {
    const p = parts(this.L, f);
    this.set('fh', 'transform', p.head);
    this.set('fk', 'opacity', String(r1(p.cheek)));
    this.set('fm', 'd', p.mouth);
    for (const i of [0, 1]) {
      this.set(`fe${i}`, 'd', p.eyes[i]);
      this.set(`fi${i}`, 'transform', p.iris[i]);
      this.set(`fs${i}`, 'transform', p.shine[i]);
      this.set(`fb${i}`, 'transform', p.brows[i]);
    }
  }
}
