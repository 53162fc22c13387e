import type { ModelCapabilities, ModelInfo } from './types.js';

// Model lists of OpenAI-style APIs carry only ids, so capabilities are read from well-known id patterns.

/** The id without vendor prefix or case: "openai/GPT-4o" -> "gpt-4o", "models/gemini-2.5-flash" -> "gemini-2.5-flash". */
export function bareModelId(id: string): string {
  return id.slice(id.lastIndexOf('/') + 1).toLowerCase();
}

export const noCapabilities: ModelCapabilities = Object.freeze({
  text: false, vision: false, tools: false, reasoning: false, embeddings: false, tts: false, stt: false, realtime: false,
});

/** OpenAI's reasoning models: o-series and gpt-5 family (not the gpt-5 chat aliases, which take no effort). */
export function isOpenAiReasoningModel(id: string): boolean {
  const m = bareModelId(id);
  return /^o\d/.test(m) || (/^gpt-5/.test(m) && !/chat/.test(m));
}

export function openAiCapabilities(id: string): ModelCapabilities {
  const m = bareModelId(id);
  const embeddings = /^text-embedding/.test(m);
  const tts = /^tts-|-tts/.test(m);
  const stt = /^whisper|transcribe/.test(m);
  const realtime = /realtime/.test(m);
  // Models that Chat Completions cannot drive (audio/search/image variants, Responses-only pro/codex/research models).
  const notChat = /audio|search|image|dall-e|moderation|davinci|babbage|computer-use|codex|-pro\b|deep-research|instruct/.test(m);
  const text = /^(gpt-|o\d|chatgpt-)/.test(m) && !notChat && !tts && !stt && !realtime && !embeddings;
  return {
    text,
    vision: text && /^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-4-turbo|gpt-5|o1(?!-mini)|o3(?!-mini)|o4|chatgpt-4o)/.test(m),
    tools: text && !/^(o1-mini|o1-preview|chatgpt-)/.test(m),
    reasoning: text && isOpenAiReasoningModel(m),
    embeddings, tts, stt, realtime,
  };
}

/** Kind A servers (Ollama, vLLM, OpenRouter...) host anything; guess from common family names. */
export function compatibleCapabilities(id: string): ModelCapabilities {
  const m = bareModelId(id);
  const embeddings = /embed|bge-|^e5-|gte-|minilm/.test(m);
  const text = !embeddings && !/tts|whisper|transcribe|rerank|moderation|dall-e|stable-diffusion|flux/.test(m);
  return {
    ...noCapabilities,
    text,
    tools: text,
    vision: text && /vision|llava|-vl\b|vl-|qwen2\.5vl|pixtral|gpt-4o|gpt-4\.1|gpt-5|gemma-?3|minicpm-v|moondream|llama-?4|claude|gemini|mistral-small-3/.test(m),
    reasoning: text && /^o\d|gpt-5|gpt-oss|deepseek-r1|qwq|qwen3|magistral|reasoning|thinking/.test(m),
    embeddings,
  };
}

/** A human label from an id: "gpt-4o-mini" -> "GPT 4o mini". */
export function labelFor(id: string): string {
  return bareModelId(id).replace(/^gpt/, 'GPT').replace(/[-_]+/g, ' ');
}

/** The first id of `preferred` that the list has, else the first model that `fits`. */
export function pickModel(models: ModelInfo[], preferred: string[], fits: (m: ModelInfo) => boolean): string | null {
  for (const p of preferred) {
    const hit = models.find((m) => bareModelId(m.id) === p && fits(m));
    if (hit) return hit.id;
  }
  return models.find(fits)?.id ?? null;
}
