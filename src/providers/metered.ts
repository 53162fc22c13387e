/**
 * Times chat requests of a provider adapter: first text, whole request, errors, tokens and estimated cost, by
 * provider kind (four values). Wrapped where adapters are made, so replies, summaries and previews all count.
 */
import { estimateCostUsd } from './prices.js';
import type { ChatEvent, ProviderAdapter } from './types.js';
import { m, metricsEnabled } from '../metrics/registry.js';

export function instrumentProvider<A extends ProviderAdapter>(adapter: A): A {
  const chat = adapter.chat;
  if (!chat) return adapter;
  const provider = adapter.kind;
  const wrapped: NonNullable<ProviderAdapter['chat']> = async (req, onEvent, signal) => {
    if (!metricsEnabled()) return chat.call(adapter, req, onEvent, signal);
    const t0 = performance.now();
    let first = true;
    let input = 0, output = 0;
    const seen = (e: ChatEvent) => {
      if (first && e.type === 'text') { first = false; m.providerFirstToken.observe({ provider }, (performance.now() - t0) / 1000); }
      else if (e.type === 'usage') { input += e.inputTokens; output += e.outputTokens; }
      onEvent(e);
    };
    let outcome = 'ok';
    try {
      await chat.call(adapter, req, seen, signal);
    } catch (err) {
      outcome = signal?.aborted ? 'stopped' : 'error';
      if (outcome === 'error') m.providerErrors.inc({ provider });
      throw err;
    } finally {
      m.providerDuration.observe({ provider, outcome }, (performance.now() - t0) / 1000);
      if (input) m.providerTokens.inc({ provider, direction: 'input' }, input);
      if (output) m.providerTokens.inc({ provider, direction: 'output' }, output);
      const cost = estimateCostUsd(req.model, { inputTokens: input, outputTokens: output });
      if (cost > 0) m.providerCost.inc({ provider }, cost);
    }
  };
  adapter.chat = wrapped;
  return adapter;
}
