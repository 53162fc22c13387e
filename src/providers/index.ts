import { invalid } from '../kernel/errors.js';
import { GeminiAdapter } from './gemini.js';
import { OpenAiAdapter } from './openai.js';
import { OpenAiCompatibleAdapter } from './openai-compatible.js';
import { SpeechAdapter } from './speech.js';
import type { ProviderAdapter, ProviderConnection, ProviderOptions } from './types.js';
import { instrumentProvider } from './metered.js';

export type * from './types.js';
export { catalog, catalogEntry, type CatalogEntry } from './catalog.js';
export { estimateCostUsd, priceFor, PRICES, type ModelPrice } from './prices.js';

/** The adapter for one connection. Cheap to make: no request is sent until a method is called. */
export function createProvider(conn: ProviderConnection, opts: ProviderOptions = {}): ProviderAdapter {
  if (conn.baseUrl) checkBaseUrl(conn.baseUrl);
  switch (conn.kind) {
    case 'openai_compatible':
      if (!conn.baseUrl) throw invalid('baseUrl: required for an OpenAI-compatible provider, e.g. http://localhost:11434/v1');
      return instrumentProvider(new OpenAiCompatibleAdapter(conn, opts));
    case 'openai':
      return instrumentProvider(new OpenAiAdapter(conn, opts));
    case 'gemini':
      return instrumentProvider(new GeminiAdapter(conn, opts));
    case 'speech':
      return new SpeechAdapter(conn, opts);
    default:
      throw invalid(`kind: unknown provider kind ${JSON.stringify((conn as { kind: unknown }).kind)}`);
  }
}

function checkBaseUrl(raw: string): void {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid('baseUrl: not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalid('baseUrl: must start with http:// or https://');
  if (url.username || url.password) throw invalid('baseUrl: must not carry a user name or password; put the key in apiKey');
}
