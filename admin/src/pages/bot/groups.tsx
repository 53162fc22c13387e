/** The settings groups, in the order people think of a bot, and which setting paths each one holds. */
import type { ComponentType } from 'preact';
import AppearanceGroup from './appearance.js';
import BehaviourGroup from './behaviour.js';
import BrainGroup from './brain.js';
import IdentityGroup from './identity.js';
import KnowledgeGroup from './knowledge.js';
import SecurityGroup from './security.js';
import TextsGroup from './texts.js';
import ToolsGroup from './tools.js';
import VisionGroup from './vision.js';
import VoiceGroup from './voice.js';
import WelcomeGroup from './welcome.js';

export interface Group { id: string; title: string; prefixes: string[]; view: ComponentType<{ hasSecret: boolean }> }

export const GROUPS: Group[] = [
  { id: 'identity', title: 'Identity & instructions', prefixes: ['identity'], view: IdentityGroup },
  { id: 'welcome', title: 'Welcome', prefixes: ['welcome'], view: WelcomeGroup },
  { id: 'brain', title: 'Brain', prefixes: ['brain'], view: BrainGroup },
  { id: 'knowledge', title: 'Knowledge', prefixes: ['knowledge', 'tools.builtins.search_knowledge'], view: KnowledgeGroup },
  { id: 'tools', title: 'Tools', prefixes: ['tools'], view: ToolsGroup },
  { id: 'voice', title: 'Voice', prefixes: ['voice'], view: VoiceGroup },
  { id: 'vision', title: 'Vision', prefixes: ['vision'], view: VisionGroup },
  { id: 'appearance', title: 'Face & appearance', prefixes: ['face', 'appearance'], view: AppearanceGroup },
  { id: 'texts', title: 'Texts & greeting', prefixes: ['texts', 'greeting'], view: TextsGroup },
  { id: 'behaviour', title: 'Behaviour', prefixes: ['behavior'], view: BehaviourGroup },
  { id: 'security', title: 'Security', prefixes: ['security'], view: SecurityGroup },
];

const under = (path: string, prefix: string) => path === prefix || path.startsWith(`${prefix}.`);

/** The group a setting path belongs to (the most specific prefix wins). */
export function groupOf(path: string): Group {
  let best: Group = GROUPS[0];
  let len = -1;
  for (const g of GROUPS) for (const p of g.prefixes) if (under(path, p) && p.length > len) { best = g; len = p.length; }
  return best;
}

/** Group title plus the setting's own path, for lists of problems and changes. */
export const whereIs = (path: string) => groupOf(path).title;
