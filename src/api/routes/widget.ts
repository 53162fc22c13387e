import { z } from 'zod';
import { acceptUpload, UPLOAD_BODY_LIMIT_BYTES } from '../../chat/uploads.js';
import { originAllowed } from '../../chat/origin.js';
import { loadWidgetBot } from '../../chat/preview.js';
import { widgetChatSocket, type WidgetServices } from '../../chat/widget-socket.js';
import { voiceSetup } from '../../voice/voice-setup.js';
import { contextFromIdentity, renderField } from '../../bots/config/index.js';
import { forbidden } from '../../kernel/errors.js';
import { botOfflineNow } from '../../bots/hours.js';
import { publicCamera } from '../../voice/camera.js';
import { extraRoute, reply, type ApiModule } from '../define.js';
import { faceMeshFiles } from '../../http/face-mesh.js';

const PUBLIC = { kind: 'public' } as const;

const Section = z.record(z.string(), z.unknown());
const WidgetConfigResponse = z.object({
  botId: z.string(), version: z.number(), preview: z.boolean(), status: z.enum(['running', 'paused']),
  identity: z.object({ agentName: z.string(), role: z.string(), mode: z.string(), language: z.string(), languagePolicy: z.string() }),
  welcome: z.object({ message: z.string(), suggestedPrompts: z.array(z.string()) }),
  texts: Section, greeting: Section, appearance: Section, face: Section,
  uploads: z.object({ enabled: z.boolean(), maxPerMessage: z.number(), maxMB: z.number() }),
  /** The camera button (vision.webcam), when the bot can see what it shows. */
  webcam: z.object({
    enabled: z.boolean(), mode: z.enum(['per_turn', 'continuous', 'on_demand']).optional(), maxFps: z.number().optional(), maxWidth: z.number().optional(),
    consentText: z.string().optional(), privacyUrl: z.string().optional(), liveVideo: z.boolean().optional(),
  }),
  /** Outside opening hours with behavior.hours.scope bot: the AI does not answer now (the face shows it). */
  offline: z.boolean(),
  behavior: Section, maxMessageChars: z.number(), voice: z.object({
    enabled: z.boolean(), mode: z.enum(['realtime', 'cascade', 'hosted_agent']), pushToTalk: z.enum(['off', 'allowed', 'only']), bargeIn: z.boolean(),
  }),
});

const UploadResponse = z.object({ id: z.string(), mimeType: z.string(), width: z.number(), height: z.number(), size: z.number() });

/** What the widget needs before it opens the chat socket: the public part of the published config (the draft with a preview token). */
export const widgetModule = (services: WidgetServices): ApiModule => ({
  name: 'widget',
  sockets: (app) => [widgetChatSocket(app, services)],
  // Page tools run in the visitor's browser over the chat socket.
  routes: [
    extraRoute({
      method: 'GET', path: '/widget/v1/bots/{id}/config', access: PUBLIC, tag: 'Widget', cors: true,
      summary: 'public settings of a bot for the widget (appearance, texts, welcome, what the chat offers); query preview: a preview token, to get the draft',
      query: z.object({ preview: z.string().max(2000).optional() }),
      response: WidgetConfigResponse,
      async handler({ app, req, params, query }) {
        const chat = await loadWidgetBot(app, services.chatBots, params.id, query.preview);
        if (!chat.preview && req.headers.origin && !originAllowed(req.headers.origin, chat.config.security.allowedOrigins)) throw forbidden('origin is not allowed to embed this bot');
        const c = chat.config;
        const ctx = contextFromIdentity(c.identity);
        const setup = c.voice.enabled ? await voiceSetup(app, chat.bot.workspaceId, c, chat.bot._id) : { error: 'off' };
        return {
          botId: chat.bot._id, version: chat.version, preview: chat.preview, status: chat.bot.status,
          identity: { agentName: c.identity.agentName, role: c.identity.role, mode: c.security.identity.mode, language: c.identity.language, languagePolicy: c.identity.languagePolicy },
          welcome: { message: renderField('welcome.message', c.welcome.message, ctx), suggestedPrompts: c.welcome.suggestedPrompts },
          texts: { ...c.texts, offline: renderField('texts.offline', c.texts.offline, ctx) },
          greeting: { ...c.greeting, text: renderField('greeting.text', c.greeting.text, ctx) },
          appearance: c.appearance, face: c.face, offline: botOfflineNow(c, app.clock.now()),
          uploads: { enabled: c.vision.uploads.enabled && !!chat.brain?.canSee, maxPerMessage: c.vision.uploads.maxPerMessage, maxMB: c.vision.uploads.maxMB },
          webcam: publicCamera(chat, (text) => renderField('vision.webcam.consentText', text, ctx), !('error' in setup) && setup.mode === 'realtime' && setup.connection.kind === 'gemini'),
          behavior: {
            feedback: c.behavior.feedback, citations: c.behavior.citations, newConversation: c.behavior.newConversation,
            transcriptDownload: c.behavior.transcriptDownload, poweredBy: c.behavior.poweredBy,
            handoff: { enabled: c.behavior.handoff.enabled },
          },
          maxMessageChars: c.security.maxMessageChars,
          // enabled only once the engine is fully set up, so the microphone button never leads nowhere.
          voice: { enabled: !('error' in setup), mode: c.voice.mode, pushToTalk: c.voice.pushToTalk, bargeIn: c.voice.bargeIn },
        };
      },
    }),
    extraRoute({
      method: 'GET', path: '/widget/v1/face-mesh/*', access: PUBLIC, tag: 'Widget', cors: true, hidden: true,
      summary: 'MediaPipe Face Mesh (script, wasm, model) for ServiceChat.skinFromPhoto, served from the @mediapipe/face_mesh package',
      handler: ({ req, params }) => reply(faceMeshFiles(req, params.rest)),
    }),
    extraRoute({
      method: 'POST', path: '/widget/v1/uploads', access: PUBLIC, tag: 'Widget', cors: true, status: 201,
      summary: 'upload an image for the next chat message (query botId, visitorToken, and preview when previewing; body: the image bytes)',
      rawBody: { contentTypes: ['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'application/octet-stream'], description: 'the image' },
      bodyLimitBytes: UPLOAD_BODY_LIMIT_BYTES,
      query: z.object({ botId: z.string().min(1).max(80), visitorToken: z.string().min(1).max(300), preview: z.string().max(2000).optional() }),
      response: UploadResponse,
      async handler({ app, req, query }) {
        const rec = await acceptUpload(app, services, { botId: query.botId, visitorToken: query.visitorToken, preview: query.preview, origin: req.headers.origin, body: req.body, signal: req.signal });
        return { id: rec._id, mimeType: rec.mimeType, width: rec.width, height: rec.height, size: rec.size };
      },
    }),
  ],
});
