/**
 * The scale bench's fake provider, in its own process so its CPU time is counted apart from the load
 * generator's (bench/scale.ts reads /proc/<pid>/stat of each role).
 *   lean: an OpenAI-compatible streamed answer in one content chunk ("Noted."), a stop chunk and usage, without
 *         reading the request body (the bench's key is checked); the cheapest answer that still exercises the
 *         server's whole streamed-reply path.
 *   test: the tests' fake (test/fakes/openai.ts), which parses and records every request and answers
 *         "You said: <question>" in several chunks: what the bench used before, kept to measure it.
 *
 *   node --import tsx bench/scale-fake.ts lean|test   -> prints {"baseUrl","apiKey"} on stdout
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startFakeOpenAI } from '../test/fakes/openai.js';

const API_KEY = 'bench-key';
const HEAD = 'data: {"id":"b","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[';
const ANSWER = `${HEAD}{"index":0,"delta":{"role":"assistant","content":"Noted."},"finish_reason":null}]}\n\n`
  + `${HEAD}{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`
  + `${HEAD}],"usage":{"prompt_tokens":50,"completion_tokens":2,"total_tokens":52}}\n\ndata: [DONE]\n\n`;
const MODELS = JSON.stringify({ object: 'list', data: [{ id: 'gpt-4o-mini', object: 'model', created: 1, owned_by: 'bench' }] });

async function lean(): Promise<string> {
  const server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${API_KEY}`) { res.writeHead(401, { 'content-type': 'application/json' }); res.end('{"error":{"message":"wrong key","type":"invalid_request_error"}}'); return; }
    // The body is drained unread: the answer does not depend on it.
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET') { res.writeHead(200, { 'content-type': 'application/json' }); res.end(MODELS); return; }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.end(ANSWER);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const mode = process.argv[2] ?? 'lean';
const baseUrl = mode === 'test' ? (await startFakeOpenAI({ apiKey: API_KEY })).baseUrl : await lean();
process.stdout.write(`${JSON.stringify({ baseUrl, apiKey: API_KEY })}\n`);
process.on('message', (m: { cmd: string }) => { if (m.cmd === 'quit') process.exit(0); });
