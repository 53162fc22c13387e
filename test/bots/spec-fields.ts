/**
 * bot-config.md transcribed by hand, one row per leaf setting: kind, inclusive range, default.
 * Tests derive boundary checks and fast-check arbitraries from these rows, so the schema is checked
 * against the spec rather than against itself. Rows with a `valid`/`invalid` override cover formats.
 */
import fc from 'fast-check';
import { TEMPLATE_FIELDS, type TemplateVariable } from '../../src/bots/config/template-vars.js';

/** A wrong value and where the error must point, relative to the row's path ('' is the row itself). */
export type Wrong = { value: unknown; at: string };

export type FieldSpec = {
  path: string;
  def: unknown;
  kind: 'int' | 'num' | 'str' | 'bool' | 'enum' | 'list' | 'special';
  min?: number;
  max?: number;
  nullable?: boolean;
  values?: readonly string[];
  /** Templated text: the variables it accepts. */
  vars?: readonly TemplateVariable[];
  /** list: item count limit and each string's length limit. */
  maxItems?: number;
  itemMax?: number;
  valid?: fc.Arbitrary<unknown>;
  invalid?: readonly Wrong[];
};

const int = (path: string, min: number, max: number | undefined, def: number | null, nullable = false): FieldSpec => ({ path, kind: 'int', min, max, def, nullable });
const num = (path: string, min: number, max: number | undefined, def: number | null, nullable = false): FieldSpec => ({ path, kind: 'num', min, max, def, nullable });
const str = (path: string, max: number, def: string | null, extra: Partial<FieldSpec> = {}): FieldSpec => ({ path, kind: 'str', max, def, ...extra });
const conn = (path: string) => str(path, 64, null, { nullable: true });
const bool = (path: string, def: boolean): FieldSpec => ({ path, kind: 'bool', def });
const oneOf = (path: string, values: readonly string[], def: string): FieldSpec => ({ path, kind: 'enum', values, def });
const list = (path: string, maxItems: number, itemMax: number): FieldSpec => ({ path, kind: 'list', maxItems, itemMax, def: [] });
const tmpl = (path: keyof typeof TEMPLATE_FIELDS, max: number, def: string) => str(path, max, def, { vars: TEMPLATE_FIELDS[path] });
const special = (path: string, def: unknown, valid: fc.Arbitrary<unknown>, invalid: Wrong[]): FieldSpec => ({ path, kind: 'special', def, valid, invalid });
const w = (value: unknown, at = ''): Wrong => ({ value, at });

const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype']);
const safeKey = (minLength: number, maxLength: number) => fc.string({ minLength, maxLength }).filter((k) => !FORBIDDEN.has(k));
/** JSON values without prototype keys at any depth (those are refused on purpose; tested elsewhere). */
const safeJson = fc.jsonValue({ maxDepth: 2 }).filter((v) => !/"(__proto__|constructor|prototype)":/.test(JSON.stringify(v)));
const two = (n: number) => String(n).padStart(2, '0');
const clock = fc.tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 })).map(([h, m]) => `${two(h)}:${two(m)}`);
const many = (n: number, item: unknown) => Array.from({ length: n }, () => item);

const timeZones = fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York', 'Asia/Kolkata', 'Australia/Adelaide');
const badTimeZones = [w('Mars/Base'), w(''), w('x'.repeat(65)), w(3)];
const languages = ['en', 'en-GB', 'de', 'pt-BR', 'zh-Hant-TW', 'es-419'];

const leadField = fc.record(
  {
    key: fc.stringMatching(/^[a-z][a-z0-9_]{0,31}$/),
    label: fc.string({ minLength: 1, maxLength: 80 }),
    type: fc.constantFrom('text', 'email', 'tel', 'textarea', 'select'),
    required: fc.boolean(),
    options: fc.array(fc.string({ maxLength: 80 }), { maxLength: 20 }),
  },
  { requiredKeys: ['key', 'label'] },
);
const toolNames = fc.oneof(fc.constant('*'), fc.array(fc.string({ minLength: 1, maxLength: 128 }), { maxLength: 10 }));
const origin = fc.oneof(
  fc.constantFrom('*', 'https://example.com', 'https://*.example.com', 'http://localhost:*', 'example.com', 'http://127.0.0.1:8080'),
  fc
    .tuple(fc.constantFrom('', 'http://', 'https://'), fc.constantFrom('', '*.'), fc.domain(), fc.constantFrom('', ':*', ':443', ':8080'))
    .map((parts) => parts.join(''))
    .filter((o) => o.length <= 300),
);

/** Every leaf of the config in spec order. */
export const FIELDS: FieldSpec[] = [
  special('schemaVersion', 1, fc.constant(1), [w(2), w(0), w('1'), w(null)]),
  str('identity.agentName', 60, 'Ava', { min: 1 }),
  str('identity.role', 120, 'Virtual assistant'),
  str('identity.businessName', 120, ''),
  special('identity.language', 'en', fc.constantFrom(...languages), [w('x_y'), w(''), w('a'.repeat(36)), w(null)]),
  oneOf('identity.languagePolicy', ['match_visitor', 'fixed'], 'match_visitor'),
  special('identity.timezone', 'UTC', timeZones, badTimeZones),
  oneOf('identity.personality.preset', ['friendly', 'professional', 'playful', 'concise', 'empathetic', 'custom'], 'friendly'),
  str('identity.personality.text', 2000, ''),
  tmpl('identity.instructions', 20000, ''),
  tmpl('identity.guardrails', 5000, ''),
  tmpl('welcome.message', 500, "Hi! I'm {{agent.name}}. How can I help you today?"),
  list('welcome.suggestedPrompts', 6, 80),
  bool('welcome.speakGreeting', false),
  conn('brain.connectionId'),
  str('brain.model', 120, ''),
  oneOf('brain.effort', ['minimal', 'low', 'medium', 'high'], 'low'),
  int('brain.maxOutputTokens', 256, 128000, 4096),
  int('brain.maxToolRounds', 1, 10, 5),
  num('brain.temperature', 0, 2, null, true),
  int('brain.compactAtTokens', 8000, undefined, 120000),
  bool('voice.enabled', false),
  oneOf('voice.mode', ['realtime', 'cascade', 'hosted_agent'], 'realtime'),
  conn('voice.realtime.connectionId'),
  str('voice.realtime.model', 120, ''),
  str('voice.realtime.voice', 120, ''),
  oneOf('voice.realtime.turnDetection', ['semantic_vad', 'server_vad'], 'semantic_vad'),
  oneOf('voice.realtime.eagerness', ['low', 'medium', 'high', 'auto'], 'auto'),
  conn('voice.cascade.stt.connectionId'),
  str('voice.cascade.stt.model', 120, ''),
  special('voice.cascade.stt.language', '', fc.constantFrom('', ...languages), [w('x_y'), w('a'.repeat(36)), w(null)]),
  conn('voice.cascade.tts.connectionId'),
  str('voice.cascade.tts.model', 120, ''),
  str('voice.cascade.tts.voice', 120, ''),
  num('voice.cascade.tts.speed', 0.5, 2, 1),
  str('voice.cascade.tts.style', 500, ''),
  conn('voice.hostedAgent.connectionId'),
  str('voice.hostedAgent.voice', 120, ''),
  str('voice.hostedAgent.ttsModel', 120, ''),
  str('voice.hostedAgent.llm', 120, ''),
  bool('voice.bargeIn', true),
  oneOf('voice.pushToTalk', ['off', 'allowed', 'only'], 'allowed'),
  num('voice.maxSessionMinutes', 1, 120, 15),
  num('voice.idleSeconds', 15, 1800, 120),
  bool('vision.uploads.enabled', true),
  int('vision.uploads.maxPerMessage', 1, 10, 4),
  num('vision.uploads.maxMB', 1, 25, 10),
  bool('vision.webcam.enabled', false),
  oneOf('vision.webcam.mode', ['continuous', 'per_turn', 'on_demand'], 'per_turn'),
  num('vision.webcam.maxFps', 0.1, 2, 1),
  int('vision.webcam.maxWidth', 160, 1280, 640),
  tmpl('vision.webcam.consentText', 1000, 'Turn on your camera so {{agent.name}} can see what you show it. Video is not recorded.'),
  special('vision.webcam.privacyUrl', '', fc.oneof(fc.constant(''), fc.webUrl().filter((u) => u.length <= 2048)), [
    w('javascript:alert(1)'),
    w('not a url'),
    w(`https://example.com/${'x'.repeat(2030)}`),
  ]),
  bool('vision.webcam.persistFrames', false),
  bool('vision.webcam.shareWithHumanAgents', false),
  conn('vision.proxy.connectionId'),
  str('vision.proxy.model', 120, ''),
  special(
    'face.config',
    { preset: 'cyan' },
    fc.tuple(fc.string({ minLength: 1, maxLength: 40 }), fc.dictionary(safeKey(1, 20).filter((k) => k !== 'preset'), safeJson, { maxKeys: 4 })).map(([preset, rest]) => ({ ...rest, preset })),
    [w('cyan'), w([]), w({ preset: '' }, '.preset'), w({ preset: 5 }, '.preset'), w({ preset: 'x'.repeat(41) }, '.preset')],
  ),
  special(
    'face.skin',
    { kind: 'catalogue', id: 'default' },
    fc.oneof(
      fc.constant(null),
      fc.record({ kind: fc.constant('catalogue'), id: fc.string({ minLength: 1, maxLength: 64 }) }),
      fc.record({ kind: fc.constant('custom'), assetId: fc.string({ minLength: 1, maxLength: 64 }) }),
    ),
    [w('default'), w({ kind: 'catalogue' }, '.id'), w({ kind: 'custom', assetId: '' }, '.assetId'), w({ kind: 'catalogue', id: 'a', extra: 1 }, '.extra'), w({ kind: 'photo', id: 'a' }, '.kind')],
  ),
  str('face.defaultMood', 40, 'content', { nullable: true }),
  bool('face.expressions', true),
  oneOf('appearance.layout', ['panel', 'drawer', 'floating', 'inline'], 'panel'),
  oneOf('appearance.launcher.type', ['bubble', 'tab', 'none'], 'bubble'),
  oneOf('appearance.launcher.position', ['bottom-right', 'bottom-left', 'top-right', 'top-left'], 'bottom-right'),
  oneOf('appearance.launcher.edge', ['right', 'left', 'bottom'], 'right'),
  oneOf('appearance.launcher.align', ['start', 'center', 'end'], 'end'),
  str('appearance.launcher.label', 40, 'Chat with us'),
  oneOf('appearance.launcher.icon', ['face', 'chat', 'avatar'], 'face'),
  num('appearance.launcher.offset.x', 0, 400, 20),
  num('appearance.launcher.offset.y', 0, 400, 20),
  num('appearance.launcher.size', 40, 96, 60),
  bool('appearance.launcher.hideOnMobile', false),
  oneOf('appearance.theme.mode', ['light', 'dark', 'auto'], 'auto'),
  special('appearance.theme.accent', '#6366f1', fc.stringMatching(/^#[0-9a-fA-F]{6}$/), [w('#fff'), w('6366f1'), w('#6366g1'), w('#6366f10'), w(null)]),
  num('appearance.theme.radius', 0, 28, 16),
  oneOf('appearance.theme.font', ['system', 'inter', 'serif', 'mono'], 'system'),
  num('appearance.panel.width', 320, 560, 400),
  num('appearance.panel.height', 400, 900, 680),
  num('appearance.drawer.width', 320, 640, 420),
  oneOf('appearance.drawer.side', ['auto', 'left', 'right'], 'auto'),
  bool('appearance.drawer.modal', false),
  num('appearance.floating.width', 220, 480, 300),
  num('appearance.floating.height', 260, 640, 420),
  bool('appearance.floating.composer', true),
  bool('appearance.mobile.fullscreen', true),
  bool('appearance.face.show', true),
  oneOf('appearance.face.size', ['small', 'medium', 'large'], 'medium'),
  oneOf('appearance.face.textReplies', ['still', 'mime', 'speak'], 'mime'),
  bool('appearance.captions', true),
  int('appearance.zIndex', 0, 2147483647, 2147483000),
  str('texts.title', 80, ''),
  str('texts.subtitle', 120, ''),
  str('texts.placeholder', 120, 'Type a message...'),
  tmpl('texts.offline', 500, "We're away right now. Leave your details and we'll get back to you."),
  special('texts.strings', {}, fc.dictionary(safeKey(1, 100), fc.string({ maxLength: 60 }), { maxKeys: 5 }), [w('x'), w({ send: 5 }, '.send'), w({ send: 'x'.repeat(2001) }, '.send')]),
  bool('greeting.enabled', false),
  tmpl('greeting.text', 200, 'Hi there! Any questions? I can help.'),
  int('greeting.delayMs', 0, 120000, 6000),
  oneOf('greeting.frequency', ['session', 'visitor', 'always'], 'session'),
  list('greeting.pages.include', 50, 300),
  list('greeting.pages.exclude', 50, 300),
  bool('greeting.mobile', false),
  bool('behavior.leadCapture.enabled', false),
  oneOf('behavior.leadCapture.when', ['tool', 'start', 'before_handoff', 'offline'], 'tool'),
  special(
    'behavior.leadCapture.fields',
    [
      { key: 'name', label: 'Name', type: 'text', required: true },
      { key: 'email', label: 'Email', type: 'email', required: true },
    ],
    fc.uniqueArray(leadField, { selector: (f) => f.key, maxLength: 12 }),
    [
      w(many(13, { key: 'a', label: 'A' })),
      w([{ key: 'Name', label: 'Name' }], '.0.key'),
      w([{ key: 'a'.repeat(33), label: 'A' }], '.0.key'),
      w([{ key: '1a', label: 'A' }], '.0.key'),
      w([{ key: 'a', label: '' }], '.0.label'),
      w([{ key: 'a', label: 'x'.repeat(81) }], '.0.label'),
      w([{ key: 'a', label: 'A', type: 'date' }], '.0.type'),
      w([{ key: 'a', label: 'A', required: 'yes' }], '.0.required'),
      w([{ key: 'a', label: 'A', type: 'select', options: many(21, 'o') }], '.0.options'),
      w([{ key: 'a', label: 'A', type: 'select', options: ['x'.repeat(81)] }], '.0.options.0'),
      w([{ key: 'a', label: 'A' }, { key: 'a', label: 'B' }], '.1.key'),
    ],
  ),
  bool('behavior.handoff.enabled', false),
  int('behavior.handoff.acceptTimeoutSec', 15, 3600, 120),
  oneOf('behavior.handoff.offlineAction', ['lead_form', 'message', 'none'], 'lead_form'),
  bool('behavior.hours.enabled', false),
  special('behavior.hours.timezone', 'UTC', timeZones, badTimeZones),
  special(
    'behavior.hours.weekly',
    [1, 2, 3, 4, 5].map((day) => ({ day, open: '09:00', close: '17:00' })),
    fc.array(fc.record({ day: fc.integer({ min: 0, max: 6 }), open: clock, close: clock }), { maxLength: 21 }),
    [
      w(many(22, { day: 1, open: '09:00', close: '17:00' })),
      w([{ day: 7, open: '09:00', close: '17:00' }], '.0.day'),
      w([{ day: -1, open: '09:00', close: '17:00' }], '.0.day'),
      w([{ day: 1.5, open: '09:00', close: '17:00' }], '.0.day'),
      w([{ day: 1, open: '24:00', close: '17:00' }], '.0.open'),
      w([{ day: 1, open: '12:60', close: '17:00' }], '.0.open'),
      w([{ day: 1, open: '09:00', close: '9:00' }], '.0.close'),
      w([{ day: 1, open: '09:00' }], '.0.close'),
    ],
  ),
  special(
    'behavior.hours.holidays',
    [],
    fc.array(fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10)), { maxLength: 100 }),
    [w(many(101, '2025-12-25')), w(['2025-02-30'], '.0'), w(['2025-13-01'], '.0'), w(['25-12-25'], '.0'), w(['2025-12-25T00:00'], '.0')],
  ),
  oneOf('behavior.hours.scope', ['handoff', 'bot'], 'handoff'),
  bool('behavior.feedback.thumbs', true),
  bool('behavior.feedback.csat', true),
  num('behavior.persistence.resumeWindowHours', 0, 720, 24),
  bool('behavior.persistence.showHistory', true),
  num('behavior.endAfterIdleMinutes', 1, 1440, 30),
  bool('behavior.citations', true),
  bool('behavior.newConversation', true),
  bool('behavior.transcriptDownload', true),
  bool('behavior.poweredBy', true),
  special('security.allowedOrigins', [], fc.array(origin, { maxLength: 100 }), [
    w(many(101, '*')),
    w(['https://example.com/'], '.0'),
    w(['ftp://example.com'], '.0'),
    w(['https://exa mple.com'], '.0'),
    w([`${'a'.repeat(297)}.com`], '.0'),
  ]),
  oneOf('security.identity.mode', ['off', 'optional', 'required'], 'off'),
  int('security.rateLimits.messagesPerMinute', 1, 600, 12),
  int('security.rateLimits.conversationsPerIpPerHour', 1, 10000, 30),
  int('security.rateLimits.uploadsPerHour', 0, 1000, 30),
  int('security.maxMessageChars', 100, 20000, 4000),
  int('security.maxTurnsPerConversation', 1, 5000, 200),
  num('security.caps.dailyUsd', 0, undefined, null, true),
  num('security.caps.dailyVoiceMinutes', 0, undefined, null, true),
  int('security.caps.dailyMessages', 0, undefined, null, true),
  int('security.caps.concurrentVoiceSessions', 0, 1000, 5),
  special('knowledge.sourceIds', [], fc.array(fc.string({ minLength: 1, maxLength: 64 }), { maxLength: 200 }), [w(many(201, 'src')), w([''], '.0'), w(['x'.repeat(65)], '.0'), w([1], '.0')]),
  oneOf('knowledge.mode', ['auto', 'tool', 'both'], 'both'),
  int('knowledge.topK', 1, 20, 5),
  ...['search_knowledge', 'capture_lead', 'handoff_to_human', 'end_conversation', 'express', 'look_at_camera'].map((b) => bool(`tools.builtins.${b}`, true)),
  special(
    'tools.http',
    [],
    fc.array(fc.record({ toolId: fc.string({ minLength: 1, maxLength: 64 }), enabled: fc.boolean() }, { requiredKeys: ['toolId'] }), { maxLength: 100 }),
    [w(many(101, { toolId: 't' })), w([{}], '.0.toolId'), w([{ toolId: '' }], '.0.toolId'), w([{ toolId: 'x'.repeat(65) }], '.0.toolId'), w([{ toolId: 't', enabled: 'yes' }], '.0.enabled'), w([{ toolId: 't', id: 'x' }], '.0.id')],
  ),
  special(
    'tools.mcp',
    [],
    fc.array(fc.record({ serverId: fc.string({ minLength: 1, maxLength: 64 }), allow: toolNames, confirmDestructive: fc.boolean() }, { requiredKeys: ['serverId'] }), { maxLength: 50 }),
    [w(many(51, { serverId: 's' })), w([{ serverId: '' }], '.0.serverId'), w([{ serverId: 's', allow: 'all' }], '.0.allow'), w([{ serverId: 's', allow: [''] }], '.0.allow.0'), w([{ serverId: 's', confirmDestructive: 1 }], '.0.confirmDestructive')],
  ),
  bool('tools.client.enabled', false),
  special('tools.client.allow', [], toolNames, [w('all'), w(5), w([''], '.0'), w(['x'.repeat(129)], '.0')]),
  int('tools.client.timeoutMs', 1000, 120000, 15000),
  int('tools.toolTimeoutMs', 1000, 120000, 15000),
  int('tools.maxResultChars', 500, 100000, 8000),
];

export function getPath(obj: unknown, path: string): unknown {
  return path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], obj);
}

/** Sets a dotted path, creating objects on the way; returns the object. */
export function setPath<T extends Record<string, unknown>>(obj: T, path: string, value: unknown): T {
  const keys = path.split('.');
  let at: Record<string, unknown> = obj;
  for (const key of keys.slice(0, -1)) {
    if (typeof at[key] !== 'object' || at[key] === null) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys[keys.length - 1]] = value;
  return obj;
}
