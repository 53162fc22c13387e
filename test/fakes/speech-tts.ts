/**
 * The speech provider's (kind D) streaming text to speech, as the fake speech server answers it:
 * POST /v1/text-to-speech/{voice}/stream?output_format=pcm_24000 sends raw PCM as it is made;
 * .../stream/with-timestamps sends one JSON object a line, each with a chunk of audio (base64) and the alignment of
 * the characters it speaks (start and end times in seconds), as the real API does for lip sync.
 */
import type { ServerResponse } from 'node:http';
import type { RecordedRequest } from './script.js';
import { speechMs, type SpeechMount } from './speech-stream.js';

type ErrorWriter = (res: ServerResponse, status: number, message: string) => void;

/** Answers the streaming routes; false when the request is not one of them. */
export function handleSpeechStream(req: RecordedRequest, res: ServerResponse, sp: SpeechMount, knownVoice: (id: string) => boolean, writeError: ErrorWriter): boolean {
  const m = /^\/v1\/text-to-speech\/([^/]+)\/stream(\/with-timestamps)?$/.exec(req.path);
  if (req.method !== 'POST' || !m) return false;
  void stream(req, res, sp, decodeURIComponent(m[1]), !!m[2], knownVoice, writeError);
  return true;
}

async function stream(req: RecordedRequest, res: ServerResponse, sp: SpeechMount, voiceId: string, timestamps: boolean, knownVoice: (id: string) => boolean, writeError: ErrorWriter): Promise<void> {
  if (!knownVoice(voiceId)) return writeError(res, 404, `A voice with voice_id ${voiceId} was not found.`);
  const body = req.body as { text: string; model_id?: string; voice_settings?: { speed?: number } | null };
  const speed = body.voice_settings?.speed ?? 1;
  const format = req.query.output_format ?? 'mp3_44100_128';
  if (!/^pcm_24000$/.test(format)) return writeError(res, 422, `output_format: this fake streams pcm_24000 only, not ${format}`);
  const how = sp.take(req.path);
  if (how === 'hang') return sp.hang(res);
  if (how === 'empty') { res.writeHead(200, { 'content-type': timestamps ? 'application/json' : 'audio/pcm' }); res.end(); return; }
  const text = body.text;
  const ms = speechMs(text, sp.control.msPerChar) / speed;
  if (!timestamps) return sp.stream(res, ms, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' }, (pcm) => pcm, how);
  // Characters are spread evenly over the audio; each chunk carries those that start inside it.
  const perChar = ms / text.length;
  return sp.stream(res, ms, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, (pcm, at, last) => {
    const chunkMs = (pcm.length / 2 / 24_000) * 1000;
    const from = Math.ceil(at / perChar);
    const to = last ? text.length : Math.ceil((at + chunkMs) / perChar);
    const chars = [...text.slice(from, to)];
    const alignment = {
      characters: chars,
      character_start_times_seconds: chars.map((_, i) => round(((from + i) * perChar) / 1000)),
      character_end_times_seconds: chars.map((_, i) => round(((from + i + 1) * perChar) / 1000)),
    };
    return `${JSON.stringify({ audio_base64: pcm.toString('base64'), alignment, normalized_alignment: alignment })}\n`;
  }, how);
}

const round = (s: number) => Math.round(s * 1000) / 1000;
