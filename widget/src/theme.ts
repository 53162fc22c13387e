/** Colour helpers shared by the loader and the chat UI (small on purpose: both bundles include them). */

const DEFAULT_ACCENT = '#6366f1';
const rgb = (hex: string) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16));

/** Relative luminance of an sRGB colour (WCAG 2). */
function luminance(c: number[]): number {
  const [r, g, b] = c.map((x) => {
    const v = x / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The fill drawn for the accent (bot-config.md appearance.theme.accent) and the text colour on it. White text where
 * it reaches 4.5:1 on the accent, or on the accent darkened by at most 5% (the default indigo #6366f1 gives white
 * 4.47:1, so its fill is #6365f0: white 4.5:1, where black would be 4.7:1 but reads poorly on a saturated mid-tone);
 * black text on the accent itself otherwise (always 4.5:1 or more then).
 */
export function accentColours(accent: string): { fill: string; on: string } {
  const c = rgb(/^#[0-9a-f]{6}$/i.test(accent) ? accent : DEFAULT_ACCENT);
  for (let i = 0; i <= 10; i++) {
    const d = c.map((x) => Math.floor(x * (1 - i / 200)));
    if (1.05 / (luminance(d) + 0.05) >= 4.5) return { fill: `#${d.map((x) => x.toString(16).padStart(2, '0')).join('')}`, on: '#fff' };
  }
  return { fill: `#${c.map((x) => x.toString(16).padStart(2, '0')).join('')}`, on: '#000' };
}

export const FONTS: Record<string, string> = {
  system: 'system-ui,sans-serif',
  inter: 'Inter,system-ui,sans-serif',
  serif: 'Georgia,serif',
  mono: 'ui-monospace,Menlo,monospace',
};

/** Phones: the width below which the chat goes full screen and hideOnMobile applies. */
export const MOBILE_QUERY = '(max-width: 640px)';
