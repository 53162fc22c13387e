import type { ServerResponse } from 'node:http';
import { fakeAudio } from './audio.js';
import { mountHostedAgents, type FakeHostedAgents } from './hosted-agent.js';
import { sendJson, startFake, type FakeOptions, type FakeServer, type RecordedRequest } from './script.js';
import { mountSpeech, type FakeSpeechControl, type SpeechMount } from './speech-stream.js';
import { mountRealtimeStt, type FakeRealtimeStt } from './speech-stt-realtime.js';
import { refuseSpeech, SPEECH_ENDPOINTS } from './speech-schemas.js';
import { handleSpeechStream } from './speech-tts.js';

/**
 * A fake ElevenLabs-style speech API (kind D): user, models, voices, text to speech (also streamed as it is made,
 * with or without timestamps: speech-tts.ts; `speech` scripts it, speech-stream.ts), speech to text,
 * key in the xi-api-key header, errors as { detail: { status, message } }, requests checked as the API checks them
 * (speech-schemas.ts: validation errors as { detail: [{ loc, msg }] }). Voice previews are public
 * files under /previews, as real preview URLs point at a file host that takes no key.
 * baseUrl is the origin (the adapter adds /v1).
 */
export const FAKE_SPEECH_VOICES = [
  { voice_id: 'voice_rachel', name: 'Rachel', labels: { accent: 'american', language: 'en' } },
  { voice_id: 'voice_hans', name: 'Hans', labels: { accent: 'german', language: 'de' } },
  { voice_id: 'voice_plain', name: 'Plain', labels: {} },
];
export const FAKE_SPEECH_MODELS = [
  { model_id: 'eleven_multilingual_v2', name: 'Eleven Multilingual v2', can_do_text_to_speech: true },
  { model_id: 'eleven_flash_v2_5', name: 'Eleven Flash v2.5', can_do_text_to_speech: true },
  { model_id: 'eleven_multilingual_sts_v2', name: 'Eleven Multilingual v2 (speech to speech)', can_do_text_to_speech: false },
];

export function writeSpeechError(res: ServerResponse, status: number, message: string): void {
  const code = status === 401 ? 'invalid_api_key' : status === 404 ? 'not_found' : status === 429 ? 'too_many_concurrent_requests' : 'error';
  sendJson(res, status, { detail: { status: code, message } });
}

/** The fake speech server; `agents` scripts and records its hosted voice agents (hosted-agent.ts). */
export type FakeSpeech = FakeServer & { agents: FakeHostedAgents; speech: FakeSpeechControl; realtimeStt: FakeRealtimeStt };

export async function startFakeSpeech(opts: FakeOptions = {}): Promise<FakeSpeech> {
  const apiKey = opts.apiKey ?? 'test-key';
  const sp = mountSpeech();
  const agents = mountHostedAgents({ apiKey, voices: FAKE_SPEECH_VOICES.map((v) => v.voice_id) });
  const stt = mountRealtimeStt({ apiKey, speech: sp });
  const server = await startFake({
    apiKey,
    baseSuffix: '',
    authorized: (r) => r.path.startsWith('/previews/') || r.headers['xi-api-key'] === apiKey,
    writeError: writeSpeechError,
    endpoints: SPEECH_ENDPOINTS,
    refuse: refuseSpeech,
    unauthorizedMessage: 'Invalid API key',
    handle: (req, res, ctx) => {
      const voiceOf = (id: string) => FAKE_SPEECH_VOICES.find((v) => v.voice_id === id);
      const withPreview = (v: (typeof FAKE_SPEECH_VOICES)[number]) => ({
        ...v, category: 'premade', preview_url: v.voice_id === 'voice_plain' ? null : `${ctx.origin}/previews/${v.voice_id}.mp3`,
      });
      const route = `${req.method} ${req.path}`;
      if (handleSpeechStream(req, res, sp, (id) => !!voiceOf(id), writeSpeechError)) return;
      if (agents.handle(req, res, ctx)) return;
      if (route === 'GET /v1/user') {
        return sendJson(res, 200, { user_id: 'user_fake', subscription: { tier: 'starter', character_count: 0, character_limit: 30000 } });
      }
      if (route === 'GET /v1/models') return sendJson(res, 200, FAKE_SPEECH_MODELS);
      if (route === 'GET /v1/voices') return sendJson(res, 200, { voices: FAKE_SPEECH_VOICES.map(withPreview) });
      let m = /^GET \/v1\/voices\/([^/]+)$/.exec(route);
      if (m) {
        const v = voiceOf(decodeURIComponent(m[1]));
        return v ? sendJson(res, 200, withPreview(v)) : writeSpeechError(res, 404, `A voice with voice_id ${m[1]} was not found.`);
      }
      m = /^GET \/previews\/([^/]+)\.mp3$/.exec(route);
      if (m) return sendAudio(res, fakeAudio(`preview of ${m[1]}`, m[1]));
      m = /^POST \/v1\/text-to-speech\/([^/]+)$/.exec(route);
      if (m) return textToSpeech(req, res, decodeURIComponent(m[1]), !!voiceOf(decodeURIComponent(m[1])));
      if (route === 'POST /v1/speech-to-text') return speechToText(req, res, sp);
      writeSpeechError(res, 404, `Not found: ${route}`);
    },
    upgrade: (req, socket, head, ctx) => { if (!stt.upgrade(req, socket, head)) agents.upgrade(req, socket, head, ctx); },
  });
  // startFake's close leaves upgraded sockets open (they would hold the server open), so they go first.
  const closeHttp = server.close;
  return Object.assign(server, { agents: agents.api, speech: sp.control, realtimeStt: stt.api, close: () => { agents.close(); stt.close(); return closeHttp(); } });
}

function sendAudio(res: ServerResponse, audio: Buffer): void {
  res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': audio.length });
  res.end(audio);
}

function textToSpeech(req: RecordedRequest, res: ServerResponse, voiceId: string, known: boolean): void {
  if (!known) return writeSpeechError(res, 404, `A voice with voice_id ${voiceId} was not found.`);
  const body = req.body as { text: string };
  sendAudio(res, fakeAudio(body.text, voiceId));
}

async function speechToText(req: RecordedRequest, res: ServerResponse, sp: SpeechMount): Promise<void> {
  const body = req.body as { file: { data: Buffer }; model_id: string; language_code?: string };
  // The words scripted for this turn are used up even when the answer never comes.
  const heard = sp.heard(body.file.data);
  const how = sp.take(req.path);
  if (how === 'hang' || how === 'stall') return sp.hang(res);
  const text = how === 'empty' ? '' : heard;
  sendJson(res, 200, { language_code: body.language_code ?? 'en', language_probability: 0.98, text, words: [] });
}
