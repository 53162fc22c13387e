import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createToken, type TestToken } from '../helpers/auth.js';
import { startTeamWorld, type TeamWorld } from '../team/helpers.js';

/** Erasure is physical: nothing of the visitor's words is left in any file under DATA_DIR. */
let w: TeamWorld;
let privacy: TestToken;
test.before(async () => {
  w = await startTeamWorld({ behavior: { leadCapture: { enabled: true } } });
  privacy = await createToken(w.server, w.owner, ['privacy:write']);
});
test.after(async () => { await w.stop(); });

/** Every file under DATA_DIR (database, WAL, lexical and vector indexes, stored files) that contains `needle`. */
function filesHolding(needle: string): string[] {
  const found: string[] = [];
  const bytes = Buffer.from(needle, 'utf8');
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (readFileSync(path).includes(bytes)) found.push(path.slice(w.server.dataDir.length + 1));
    }
  };
  walk(w.server.dataDir);
  return found;
}

const SECRET_TEXT = 'my locker code is zanzibar-quokka-7781';
const SECRET_EMAIL = 'quokka.7781@example.org';

test('after erasure the visitor\'s words and e-mail are in no file under DATA_DIR', async () => {
  const visitor = await w.widget();
  const ready = await visitor.frame('ready');
  w.fake.script([{ toolCalls: [{ name: 'capture_lead', arguments: { name: 'Quinn', email: SECRET_EMAIL } }] }, { text: 'Thanks, Quinn.' }]);
  visitor.send({ t: 'message', text: `${SECRET_TEXT}, write to ${SECRET_EMAIL}` });
  await visitor.frame('message', (f) => f.message.role === 'assistant');
  await visitor.close();
  assert.ok(filesHolding(SECRET_TEXT).length > 0, 'the words were stored (the test looks in the right place)');

  const erased = await w.server.request('DELETE', `/api/v1/visitors/${ready.visitorId}`, { headers: privacy.headers });
  assert.is(erased.status, 200, JSON.stringify(erased.body));
  assert.equal(filesHolding(SECRET_TEXT), [], 'the message text');
  assert.equal(filesHolding('zanzibar-quokka'), [], 'any piece of it');
  assert.equal(filesHolding(SECRET_EMAIL), [], 'the e-mail');
});

test('an erased visitor\'s old token gets a new visitor id, not the erased one back', async () => {
  const first = await w.widget();
  const ready = await first.frame('ready');
  await first.close();
  assert.is((await w.server.request('DELETE', `/api/v1/visitors/${ready.visitorId}`, { headers: privacy.headers })).status, 200);

  const upload = await w.server.fetch(`/widget/v1/uploads?botId=${w.botId}&visitorToken=${encodeURIComponent(ready.visitorToken)}`, { method: 'POST', headers: { 'content-type': 'image/png' }, body: new Uint8Array(8) });
  assert.is(upload.status, 401, 'an upload with the old token is refused');
  assert.match(((await upload.json()) as { error: { message: string } }).error.message, 'reconnect');

  const again = await w.widget({ visitorToken: ready.visitorToken });
  const back = await again.frame('ready');
  assert.is.not(back.visitorId, ready.visitorId);
  assert.is.not(back.visitorToken, ready.visitorToken);
  await again.close();
  assert.is((await w.server.request('GET', `/api/v1/visitors/${ready.visitorId}/export`, { headers: privacy.headers })).status, 404);
});

test.run();
