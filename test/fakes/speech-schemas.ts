/**
 * The requests the fake speech provider takes (strict.ts), modelled on ElevenLabs' reference: text to speech (plain
 * and streamed), speech to text (multipart), hosted agents; and how it refuses one, as its FastAPI service does:
 * 422 with { detail: [{ type, loc: ['body', ...], msg, input }] }. Fields it does not know are ignored, as there.
 */
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { sendJson } from './script.js';
import { filePart, type Endpoint, type Problem } from './strict.js';

const PYDANTIC: Record<string, [string, string]> = {
  string: ['string_type', 'Input should be a valid string'],
  number: ['float_type', 'Input should be a valid number'],
  int: ['int_type', 'Input should be a valid integer'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  object: ['dict_type', 'Input should be a valid dictionary'],
  array: ['list_type', 'Input should be a valid list'],
};

/** 'voice_settings.speed' or 'tools[0].name' as a pydantic location. */
const loc = (path: string): Array<string | number> => ['body', ...path.split(/\.|(?=\[)/).filter(Boolean).map((k) => (/^\[\d+\]$/.test(k) ? Number(k.slice(1, -1)) : k))];

export function speechValidationError(p: Problem): { type: string; loc: Array<string | number>; msg: string; input: unknown } {
  switch (p.kind) {
    case 'malformed': return { type: 'json_invalid', loc: ['body', 0], msg: 'JSON decode error', input: {} };
    case 'content_type': return p.wants === 'json'
      ? { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from', input: p.got }
      // A body that is not a form has none of the form's fields.
      : { type: 'missing', loc: ['body', 'file'], msg: 'Field required', input: null };
    case 'missing': return { type: 'missing', loc: loc(p.path), msg: 'Field required', input: null };
    case 'type': {
      const [type, msg] = PYDANTIC[p.expected] ?? ['type_error', `Input should be a valid ${p.expected}`];
      return { type, loc: loc(p.path), msg, input: p.input };
    }
    case 'unknown': return { type: 'extra_forbidden', loc: loc(p.path), msg: 'Extra inputs are not permitted', input: null };
    case 'value': return { type: 'value_error', loc: loc(p.path), msg: p.message, input: null };
  }
}

export function refuseSpeech(res: ServerResponse, p: Problem): void {
  sendJson(res, 422, { detail: [speechValidationError(p)] });
}

const unit = z.number().min(0).max(1);
const speed = z.number().min(0.7, { error: 'Input should be greater than or equal to 0.7' }).max(1.2, { error: 'Input should be less than or equal to 1.2' });
const textToSpeech = z.object({
  text: z.string(),
  model_id: z.string().optional(),
  language_code: z.string().nullable().optional(),
  voice_settings: z.object({ stability: unit.optional(), similarity_boost: unit.optional(), style: unit.optional(), use_speaker_boost: z.boolean().optional(), speed: speed.optional() }).nullable().optional(),
  previous_text: z.string().nullable().optional(),
  next_text: z.string().nullable().optional(),
  previous_request_ids: z.array(z.string()).max(3).nullable().optional(),
  next_request_ids: z.array(z.string()).max(3).nullable().optional(),
  seed: z.number().int().nullable().optional(),
  apply_text_normalization: z.enum(['auto', 'on', 'off']).optional(),
});

/** Multipart: text fields and the file. */
const speechToText = z.object({
  model_id: z.string().min(1),
  file: filePart,
  language_code: z.string().optional(),
  tag_audio_events: z.enum(['true', 'false']).optional(),
  num_speakers: z.string().regex(/^\d+$/).optional(),
  timestamps_granularity: z.enum(['none', 'word', 'character']).optional(),
  diarize: z.enum(['true', 'false']).optional(),
  file_format: z.enum(['pcm_s16le_16', 'other']).optional(),
});

const agent = {
  name: z.string().nullable().optional(),
  platform_settings: z.record(z.string(), z.unknown()).nullable().optional(),
  tags: z.array(z.string()).nullable().optional(),
};
const createAgent = z.object({ conversation_config: z.record(z.string(), z.unknown()), ...agent });
const updateAgent = z.object({ conversation_config: z.record(z.string(), z.unknown()).nullable().optional(), ...agent });

export const SPEECH_ENDPOINTS: readonly Endpoint[] = [
  { route: /^POST \/v1\/text-to-speech\/[^/]+(\/stream(\/with-timestamps)?)?$/, body: 'json', schema: textToSpeech },
  { route: 'POST /v1/speech-to-text', body: 'multipart', schema: speechToText },
  { route: 'POST /v1/convai/agents/create', body: 'json', schema: createAgent },
  { route: /^PATCH \/v1\/convai\/agents\/[^/]+$/, body: 'json', schema: updateAgent },
];
