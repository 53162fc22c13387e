/**
 * Sets up, through the server's own API with an admin token, what the capacity test talks to: a provider
 * connection to the simulated provider and a published bot using it, with rate limits raised so visitors
 * that all come from this machine's address are not refused. Removed again at the end. With `voiceCap`, voice is
 * on too (voice.mode realtime) through a second connection, of kind OpenAI, to the same simulated server's realtime
 * engine, and `voiceCap` is the bot's concurrentVoiceSessions.
 */
import { SIMULATED_MODEL } from './fake-provider.js';
import { SIMULATED_REALTIME_MODEL } from './voice-engine.js';

export class SetupError extends Error {}

export interface TestBot { botId: string; providerId: string; remove(): Promise<void> }

export async function setUpBot(base: string, token: string, providerBaseUrl: string, providerKey: string, messagesPerMinute: number, voiceCap: number | null = null): Promise<TestBot> {
  const call = async (method: string, path: string, body?: unknown) => {
    let res: Response;
    try {
      res = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (err) {
      throw new SetupError(`cannot reach ${base} (${(err as Error).cause ?? (err as Error).message}): check --url`);
    }
    const text = await res.text();
    const data = text ? JSON.parse(text) : null;
    if (res.status === 401 || res.status === 403) throw new SetupError(`${method} ${path}: ${res.status} ${data?.error?.message ?? ''}: --token must be an API token with the admin scopes providers:write and bots:write`);
    if (res.status >= 400) throw new SetupError(`${method} ${path}: ${res.status} ${data?.error?.message ?? text}`);
    return data;
  };
  const connect = async (kind: string, name: string) => {
    try {
      return await call('POST', '/api/v1/providers', { kind, name, apiKey: providerKey, baseUrl: providerBaseUrl });
    } catch (err) {
      if (err instanceof SetupError && /baseUrl|private|reach/i.test(err.message)) {
        throw new SetupError(`${err.message}\nThe server must reach the simulated provider at ${providerBaseUrl}: pass --provider-url with an address the server can reach (and set ALLOW_PRIVATE_NETWORK=true on the server for a private or loopback address); see docs/operations.md.`);
      }
      throw err;
    }
  };
  const provider = await connect('openai_compatible', 'Capacity test (simulated)');
  let voice: { id: string } | null = null;
  const removeProvider = async () => {
    await call('DELETE', `/api/v1/providers/${provider.id}`).catch(() => {});
    if (voice) await call('DELETE', `/api/v1/providers/${voice.id}`).catch(() => {});
  };
  try {
    if (voiceCap !== null) voice = await connect('openai', 'Capacity test voice (simulated)');
    const created = await call('POST', '/api/v1/bots', { name: 'Capacity test' });
    const patched = await call('PATCH', `/api/v1/bots/${created.id}`, {
      revision: created.revision,
      patch: {
        brain: { connectionId: provider.id, model: SIMULATED_MODEL },
        security: { rateLimits: { conversationsPerIpPerHour: 10_000, messagesPerMinute }, ...(voice ? { caps: { concurrentVoiceSessions: voiceCap } } : {}) },
        // server_vad: the simulated engine ends a turn after a fixed quiet, as OpenAI's server_vad does.
        ...(voice ? { voice: { enabled: true, mode: 'realtime', realtime: { connectionId: voice.id, model: SIMULATED_REALTIME_MODEL, turnDetection: 'server_vad' } } } : {}),
      },
    });
    await call('POST', `/api/v1/bots/${created.id}/publish`, { revision: patched.revision });
    return {
      botId: created.id, providerId: provider.id,
      async remove() { await call('DELETE', `/api/v1/bots/${created.id}`).catch(() => {}); await removeProvider(); },
    };
  } catch (err) {
    await removeProvider();
    throw err;
  }
}
