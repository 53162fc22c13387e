/**
 * The catalogue faces (face.skin { kind: catalogue, id }) and their colour presets (face.config.preset). A skin
 * is static SVG (head, hair, screen...) plus where its features sit; the features themselves (eyes, brows,
 * mouth, cheeks) are drawn by draw.ts, in the same way for every skin, from the current frame. The same
 * markup, drawn once in the content mood, is the launcher's picture (built to static files by scripts/build.mjs).
 */
export interface Palette { light: string; main: string; deep: string; ink: string }

export const PRESETS: Record<string, Palette> = {
  cyan: { light: '#a5f3fc', main: '#22d3ee', deep: '#0e7490', ink: '#083344' },
  violet: { light: '#ddd6fe', main: '#a78bfa', deep: '#6d28d9', ink: '#2e1065' },
  coral: { light: '#fecdd3', main: '#fb7185', deep: '#be123c', ink: '#4c0519' },
  mint: { light: '#bbf7d0', main: '#4ade80', deep: '#15803d', ink: '#052e16' },
  amber: { light: '#fef08a', main: '#fbbf24', deep: '#b45309', ink: '#451a03' },
  sky: { light: '#bfdbfe', main: '#60a5fa', deep: '#1d4ed8', ink: '#172554' },
  slate: { light: '#e2e8f0', main: '#94a3b8', deep: '#334155', ink: '#0f172a' },
};

export const SKIN_TONES: Record<string, [string, string]> = {
  light: ['#f8d9c4', '#e9b99c'], medium: ['#e6b08e', '#cf8f6c'], tan: ['#c98b62', '#a86e4a'], deep: ['#8a5637', '#6b4029'],
};

/** Where a skin's features sit and how they look (viewBox 0 0 200 200). */
export interface Layout {
  eyeX: number; eyeY: number; eyeW: number; eyeH: number;
  browY: number; browW: number; browWidth: number;
  mouthY: number; mouthW: number; lipWidth: number;
  cheekY: number; cheekX: number;
  /** Eyes with whites and an iris (friend) rather than solid glossy eyes. */
  iris: boolean;
  eye: string; brow: string; lips: string; mouth: string; cheek: string; shine: string;
}

/** body: drawn still (shoulders); back and front: behind and in front of the features, moving with the head. */
export interface Skin { layout: Layout; back: string; front?: string; body?: string }

/** Resolved face.config: a palette (preset, with `color` overriding its main colour) and the skin's options. */
export interface Look { pal: Palette; tone: [string, string]; hair: string; blush: boolean; motion: number }

const HEX = /^#[0-9a-f]{6}$/i;
const mix = (a: string, b: string, t: number) => '#' + [1, 3, 5].map((i) => Math.round(parseInt(a.slice(i, i + 2), 16) * (1 - t) + parseInt(b.slice(i, i + 2), 16) * t).toString(16).padStart(2, '0')).join('');

export function lookOf(config: Record<string, unknown> = {}, accent?: string): Look {
  const preset = String(config.preset ?? 'cyan');
  let pal = PRESETS[preset] ?? PRESETS.cyan;
  // preset "accent" follows the widget's accent colour; config.color overrides any preset's main colour.
  const color = typeof config.color === 'string' && HEX.test(config.color) ? config.color : preset === 'accent' && accent && HEX.test(accent) ? accent : null;
  if (color) pal = { light: mix(color, '#ffffff', 0.6), main: color, deep: mix(color, '#000000', 0.35), ink: mix(color, '#000000', 0.78) };
  const hair = typeof config.hair === 'string' && HEX.test(config.hair) ? config.hair : '#3b2a20';
  const motion = config.motion === 'calm' ? 0.5 : config.motion === 'lively' ? 1.5 : 1;
  return { pal, tone: SKIN_TONES[String(config.skinTone)] ?? SKIN_TONES.medium, hair, blush: config.blush !== false, motion };
}

export const SKIN_IDS = ['default', 'visor', 'friend'] as const;

export function skinOf(id: string, look: Look, u: string): Skin {
  const { pal, tone, hair } = look;
  const grad = (gid: string, stops: Array<[number, string]>, r = false, extra = '') =>
    `<${r ? 'radialGradient' : 'linearGradient'} id="${u}${gid}" ${extra}>${stops.map(([o, c]) => `<stop offset="${o}" stop-color="${c}"/>`).join('')}</${r ? 'radialGradient' : 'linearGradient'}>`;
  if (id === 'visor') {
    return {
      layout: {
        eyeX: 30, eyeY: 100, eyeW: 11, eyeH: 15, browY: 76, browW: 10, browWidth: 5, mouthY: 132, mouthW: 18, lipWidth: 5,
        cheekY: 121, cheekX: 47, iris: false, eye: pal.light, brow: pal.main, lips: pal.light, mouth: pal.deep, cheek: '#f472b6', shine: '#ffffff',
      },
      back: `<defs>${grad('h', [[0, '#ffffff'], [1, mix(pal.light, '#94a3b8', 0.45)]], false, 'x1="0" y1="0" x2="0.3" y2="1"')}${grad('s', [[0, '#1e293b'], [1, '#020617']], false, 'x1="0" y1="0" x2="0" y2="1"')}${grad('g', [[0, pal.main], [1, pal.deep]], true)}</defs>
<path d="M100 36V16" stroke="#94a3b8" stroke-width="5" stroke-linecap="round"/><circle cx="100" cy="14" r="9" fill="url(#${u}g)"/>
<rect x="6" y="92" width="22" height="44" rx="11" fill="${pal.deep}"/><rect x="172" y="92" width="22" height="44" rx="11" fill="${pal.deep}"/>
<rect x="18" y="34" width="164" height="154" rx="58" fill="url(#${u}h)"/>
<rect x="34" y="56" width="132" height="112" rx="44" fill="url(#${u}s)"/>
<path d="M58 66q42-14 84 0" stroke="#ffffff" stroke-opacity=".12" stroke-width="6" stroke-linecap="round" fill="none"/>`,
    };
  }
  if (id === 'friend') {
    return {
      layout: {
        eyeX: 23, eyeY: 104, eyeW: 11, eyeH: 8, browY: 84, browW: 12, browWidth: 4.5, mouthY: 144, mouthW: 15, lipWidth: 3.2,
        cheekY: 126, cheekX: 38, iris: true, eye: '#ffffff', brow: hair, lips: '#b4475e', mouth: '#4a1420', cheek: '#f08a8a', shine: '#ffffff',
      },
      body: `<defs>${grad('sh', [[0, pal.main], [1, pal.deep]], false, 'x1="0" y1="0" x2="0" y2="1"')}${grad('f', [[0, tone[0]], [1, mix(tone[0], tone[1], 0.6)]], true, 'cx=".45" cy=".4" r=".7"')}</defs>
<path d="M84 150h32v26H84z" fill="${tone[1]}"/>
<path d="M20 200c4-26 30-38 56-40h48c26 2 52 14 56 40z" fill="url(#${u}sh)"/><path d="M84 160l16 16 16-16" fill="none" stroke="${tone[1]}" stroke-width="6" stroke-linejoin="round"/>`,
      back: `<path d="M38 108C30 40 66 22 102 22s74 20 62 86c-4 22-10 38-18 48H56c-10-12-16-28-18-48z" fill="${hair}"/>
<ellipse cx="42" cy="110" rx="9" ry="13" fill="${tone[1]}"/><ellipse cx="158" cy="110" rx="9" ry="13" fill="${tone[1]}"/>
<ellipse cx="100" cy="104" rx="58" ry="66" fill="url(#${u}f)"/>
<path d="M97 112q-4 12 2 16q3 1 6-1" fill="none" stroke="${tone[1]}" stroke-width="3" stroke-linecap="round"/>`,
      front: `<path d="M40 104c-2-44 22-70 62-70 36 0 60 22 58 70-6-20-16-32-30-38-22 10-50 10-76 2-8 8-12 20-14 36z" fill="${hair}"/>`,
    };
  }
  return {
    layout: {
      eyeX: 27, eyeY: 94, eyeW: 10.5, eyeH: 15, browY: 68, browW: 10, browWidth: 5, mouthY: 132, mouthW: 17, lipWidth: 5,
      cheekY: 120, cheekX: 50, iris: false, eye: pal.ink, brow: pal.ink, lips: pal.ink, mouth: mix(pal.ink, '#000000', 0.2), cheek: '#ff6b9a', shine: '#ffffff',
    },
    back: `<defs>${grad('o', [[0, mix(pal.light, '#ffffff', 0.5)], [0.55, pal.main], [1, pal.deep]], true, 'cx=".4" cy=".32" r=".78" fx=".36" fy=".26"')}</defs>
<circle cx="100" cy="104" r="86" fill="url(#${u}o)"/>
<ellipse cx="72" cy="46" rx="30" ry="14" transform="rotate(-24 72 46)" fill="#ffffff" fill-opacity=".35"/>`,
  };
}
