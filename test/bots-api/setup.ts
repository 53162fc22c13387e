/** Shared set-up for the bots, providers and faces API tests: a real server, a signed-in owner, fake providers. */
import { FakeClock } from '../../src/kernel/clock.js';
import { startFakeOpenAI } from '../fakes/openai.js';
import { startFakeSpeech } from '../fakes/speech.js';
import type { FakeServer } from '../fakes/script.js';
import { setupOwner, type TestSession } from '../helpers/auth.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

export interface World {
  server: TestServer;
  owner: TestSession;
  clock: FakeClock;
  openai: FakeServer;
  speech: FakeServer;
  /** JSON request as the owner. */
  as(method: string, path: string, body?: unknown): Promise<{ status: number; headers: Headers; body: any }>;
  /** Connects the fake OpenAI (kind B) and returns the connection. */
  connectOpenAI(name?: string): Promise<any>;
  connectSpeech(name?: string): Promise<any>;
  close(): Promise<void>;
}

export async function startWorld(): Promise<World> {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const [server, openai, speech] = await Promise.all([startTestServer({ clock }), startFakeOpenAI(), startFakeSpeech()]);
  const owner = await setupOwner(server);
  const as: World['as'] = (method, path, body) => server.request(method, path, { body, headers: owner.headers });
  const connected = async (body: unknown) => {
    const r = await as('POST', '/api/v1/providers', body);
    if (r.status !== 201) throw new Error(`connect answered ${r.status}: ${JSON.stringify(r.body)}`);
    return r.body;
  };
  return {
    server, owner, clock, openai, speech, as,
    connectOpenAI: (name = 'OpenAI') => connected({ kind: 'openai', name, apiKey: openai.apiKey, baseUrl: openai.baseUrl }),
    connectSpeech: (name = 'Voices') => connected({ kind: 'speech', name, apiKey: speech.apiKey, baseUrl: speech.baseUrl }),
    async close() {
      await server.stop();
      await Promise.all([openai.close(), speech.close()]);
    },
  };
}
