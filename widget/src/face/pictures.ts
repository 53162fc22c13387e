/**
 * The launcher's face pictures: every catalogue face in every named preset, drawn once in the content mood.
 * Run by the build (scripts/build.mjs) into dist/public/widget/faces/<skin>-<preset>.svg.
 */
import { faceMarkup } from './draw.js';
import { lookOf, PRESETS, SKIN_IDS } from './skins.js';

export function pictures(): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const skin of SKIN_IDS) for (const preset of Object.keys(PRESETS)) out.push([`${skin}-${preset}.svg`, faceMarkup(skin, lookOf({ preset }), 'p')]);
  return out;
}
