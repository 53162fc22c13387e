import OpenAI from 'openai';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clientPool, outboundFailure, startServer, type LoopbackServer } from './loopback-server.js';

let server: LoopbackServer;
let other: LoopbackServer; // a second origin
let release = () => {};
const { client, closeAll } = clientPool({ allowPrivateNetwork: true });

const echo = (res: import('node:http').ServerResponse, req: import('node:http').IncomingMessage, body: string) =>
  res.setHeader('content-type', 'application/json').end(JSON.stringify({
    method: req.method, body, auth: req.headers.authorization ?? null, type: req.headers['content-type'] ?? null, ua: req.headers['user-agent'],
  }));

test.before(async () => {
  other = await startServer((req, res, body) => echo(res, req, body));
  server = await startServer((req, res, body) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/echo') echo(res, req, body);
    else if (url.pathname === '/to') res.writeHead(307, { location: url.searchParams.get('url') ?? '/' }).end();
    else if (url.pathname === '/hang') { /* never answers */ }
    else if (url.pathname === '/drip') {
      // The first part now, the rest only when the test says so.
      res.writeHead(200, { 'content-type': 'text/plain' }).write('first;');
      release = () => res.end('second');
    } else if (url.pathname === '/v1/chat/completions') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, extra = '') => `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":${JSON.stringify(delta)},"finish_reason":null}]${extra}}\n\n`;
      res.write(chunk({ role: 'assistant', content: 'Hel' }));
      setTimeout(() => res.end(`${chunk({ content: 'lo' })}data: [DONE]\n\n`), 20);
    } else res.writeHead(404).end();
  });
});
test.after(async () => {
  await closeAll();
  await Promise.all([server.close(), other.close()]);
});

test('the body is a Node stream that gives each part as it arrives', async () => {
  const res = await client().nodeFetch(`${server.origin}/drip`);
  assert.is(res.status, 200);
  assert.ok(res.ok);
  assert.is(res.headers.get('content-type'), 'text/plain');
  const parts: string[] = [];
  for await (const part of res.body) {
    parts.push(String(part));
    if (parts.length === 1) release();
  }
  assert.equal(parts, ['first;', 'second'], 'the first part came before the server finished');
});

test('json() and text() read the body; our User-Agent is sent by default', async () => {
  const res = await client().nodeFetch(`${server.origin}/echo`, { method: 'POST', body: 'hi', headers: { 'content-type': 'text/plain' } });
  assert.equal(await res.json(), { method: 'POST', body: 'hi', auth: null, type: 'text/plain', ua: 'ServiceChat/1' });
  assert.ok(res.bodyUsed);
});

test('FormData bodies are sent as multipart, as fetch would', async () => {
  const form = new FormData();
  form.append('model', 'whisper-1');
  form.append('file', new Blob([Buffer.from('RIFF')], { type: 'audio/wav' }), 'a.wav');
  const got = await (await client().nodeFetch(`${server.origin}/echo`, { method: 'POST', body: form })).json() as { type: string; body: string };
  assert.match(got.type, /^multipart\/form-data; boundary=/);
  assert.match(got.body, /name="model"\r\n\r\nwhisper-1/);
  assert.match(got.body, /filename="a.wav"/);
});

test('a 307 keeps the method and body; credentials do not follow to another origin', async () => {
  const res = await client().nodeFetch(`${server.origin}/to?url=${encodeURIComponent(`${other.origin}/echo`)}`, {
    method: 'POST', body: '{"a":1}', headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
  });
  assert.ok(res.redirected);
  assert.is(res.url, `${other.origin}/echo`);
  assert.equal(await res.json(), { method: 'POST', body: '{"a":1}', auth: null, type: 'application/json', ua: 'ServiceChat/1' });
});

test('a private address is refused unless allowed, also after a redirect', async () => {
  const strict = client({ allowPrivateNetwork: false });
  assert.is((await outboundFailure(strict.nodeFetch(`${server.origin}/echo`))).code, 'blocked_address');
  const viaRedirect = client({ allowPrivateNetwork: false, isPublic: (ip) => ip !== '127.0.0.2' });
  const internal = await startServer((req, res, body) => echo(res, req, body), '127.0.0.2');
  try {
    const err = await outboundFailure(viaRedirect.nodeFetch(`${server.origin}/to?url=${encodeURIComponent(`${internal.origin}/echo`)}`));
    assert.is(err.code, 'blocked_address');
    assert.is(internal.seen.length, 0);
  } finally {
    await internal.close();
  }
});

test('no response headers within the time limit is a timeout; the caller can abort a body', async () => {
  const err = await outboundFailure(client({ timeoutMs: 100 }).nodeFetch(`${server.origin}/hang`));
  assert.is(err.code, 'timeout');
  const controller = new AbortController();
  const res = await client().nodeFetch(`${server.origin}/drip`, { signal: controller.signal });
  const reading = (async () => { for await (const part of res.body) void part; })();
  controller.abort(new Error('visitor left'));
  await reading.then(() => assert.unreachable('the body ended normally'), (e: Error) => assert.ok(e));
  release();
});

test('the OpenAI SDK streams a chat completion through it', async () => {
  const sdk = new OpenAI({ apiKey: 'k', baseURL: `${server.origin}/v1`, fetch: client().nodeFetch as unknown as typeof fetch, maxRetries: 0 });
  const stream = await sdk.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
  let text = '';
  for await (const c of stream) text += c.choices[0]?.delta?.content ?? '';
  assert.is(text, 'Hello');
  const sent = JSON.parse(server.seen[server.seen.length - 1].body);
  assert.equal(sent.messages, [{ role: 'user', content: 'hi' }]);
});

test.run();
