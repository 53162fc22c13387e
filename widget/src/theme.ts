/** Colour helpers shared by the loader and the chat UI (small on purpose: both bundles include them). */

/** Relative luminance of #rrggbb (WCAG 2). */
function luminance(hex: string): number {
  const c = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/** Black or white, whichever has the higher contrast ratio on the accent (bot-config.md appearance.theme.accent). */
export function textOn(accent: string): string {
  const l = luminance(/^#[0-9a-f]{6}$/i.test(accent) ? accent : '#6366f1');
  return (l + 0.05) / 0.05 > 1.05 / (l + 0.05) ? '#000' : '#fff';
}

export const FONTS: Record<string, string> = {
  system: 'system-ui,sans-serif',
  inter: 'Inter,system-ui,sans-serif',
  serif: 'Georgia,serif',
  mono: 'ui-monospace,Menlo,monospace',
};

/** Phones: the width below which the chat goes full screen and hideOnMobile applies. */
export const MOBILE_QUERY = '(max-width: 640px)';
