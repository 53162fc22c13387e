/** Sections about the agent itself (bot-config.md): identity, welcome, brain, voice, vision, face. */
import { z } from 'zod';
import { TEMPLATE_FIELDS } from './template-vars.js';
import { bool, connectionId, int, languageTag, modelId, name, num, oneOf, section, stringList, templated, text, timeZone, webUrlOrEmpty } from './primitives.js';

export const IdentitySchema = section({
  agentName: z.string().min(1).max(60).default('Ava'),
  role: text(120, 'Virtual assistant'),
  businessName: text(120),
  language: languageTag('en', false),
  languagePolicy: oneOf(['match_visitor', 'fixed'], 'match_visitor'),
  timezone: timeZone('UTC'),
  personality: section({
    preset: oneOf(['friendly', 'professional', 'playful', 'concise', 'empathetic', 'custom'], 'friendly'),
    text: text(2000),
  }),
  instructions: templated(20000, TEMPLATE_FIELDS['identity.instructions']),
  guardrails: templated(5000, TEMPLATE_FIELDS['identity.guardrails']),
});

export const WelcomeSchema = section({
  message: templated(500, TEMPLATE_FIELDS['welcome.message'], "Hi! I'm {{agent.name}}. How can I help you today?"),
  suggestedPrompts: stringList(6, 80),
  speakGreeting: bool(false),
});

export const BrainSchema = section({
  connectionId: connectionId(),
  model: modelId(),
  effort: oneOf(['minimal', 'low', 'medium', 'high'], 'low'),
  maxOutputTokens: int(256, 128000, 4096),
  maxToolRounds: int(1, 10, 5),
  temperature: z.number().min(0).max(2).nullable().default(null),
  compactAtTokens: z.int().min(8000).default(120000),
});

export const VoiceSchema = section({
  enabled: bool(false),
  mode: oneOf(['realtime', 'cascade', 'hosted_agent'], 'realtime'),
  realtime: section({
    connectionId: connectionId(),
    model: modelId(),
    voice: modelId(),
    turnDetection: oneOf(['semantic_vad', 'server_vad'], 'semantic_vad'),
    eagerness: oneOf(['low', 'medium', 'high', 'auto'], 'auto'),
  }),
  cascade: section({
    stt: section({
      connectionId: connectionId(),
      model: modelId(),
      language: languageTag('', true),
    }),
    tts: section({
      connectionId: connectionId(),
      model: modelId(),
      voice: modelId(),
      speed: num(0.5, 2, 1),
      style: text(500),
    }),
  }),
  hostedAgent: section({
    connectionId: connectionId(),
    voice: modelId(),
    ttsModel: modelId(),
    llm: modelId(),
  }),
  bargeIn: bool(true),
  pushToTalk: oneOf(['off', 'allowed', 'only'], 'allowed'),
  maxSessionMinutes: num(1, 120, 15),
  idleSeconds: num(15, 1800, 120),
});

export const VisionSchema = section({
  uploads: section({
    enabled: bool(true),
    maxPerMessage: int(1, 10, 4),
    maxMB: num(1, 25, 10),
  }),
  webcam: section({
    enabled: bool(false),
    mode: oneOf(['continuous', 'per_turn', 'on_demand'], 'per_turn'),
    maxFps: num(0.1, 2, 1),
    maxWidth: int(160, 1280, 640),
    consentText: templated(
      1000,
      TEMPLATE_FIELDS['vision.webcam.consentText'],
      'Turn on your camera so {{agent.name}} can see what you show it. Video is not recorded.',
    ),
    privacyUrl: webUrlOrEmpty(2048),
    persistFrames: bool(false),
    shareWithHumanAgents: bool(false),
  }),
  proxy: section({
    connectionId: connectionId(),
    model: modelId(),
  }),
});

/** A face from the service's catalogue, or a custom face made from a photo (an uploaded asset). */
export const FaceSkinSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('catalogue'), id: name(64) }),
  z.strictObject({ kind: z.literal('custom'), assetId: name(64) }),
]);

export const FaceSchema = section({
  /** Face engine settings are owned by the face engine; here only JSON values, with the colour preset defaulted. */
  config: z
    .object({ preset: z.string().min(1).max(40).default('cyan') })
    .catchall(z.json())
    .prefault({}),
  skin: FaceSkinSchema.nullable().default(() => ({ kind: 'catalogue' as const, id: 'default' })),
  defaultMood: z.string().max(40).nullable().default('content'),
  expressions: bool(true),
});
