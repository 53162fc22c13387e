import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startWorld, type World } from './setup.js';

let w: World;
test.before(async () => { w = await startWorld(); });
test.after(async () => { await w.close(); });

const created = async (body: Record<string, unknown>) => {
  const r = await w.as('POST', '/api/v1/bots', body);
  assert.is(r.status, 201, JSON.stringify(r.body));
  return r.body;
};

test('a new bot starts in English and UTC while the workspace keeps its defaults', async () => {
  const { draft } = await created({ name: 'Plain' });
  assert.is(draft.identity.language, 'en');
  assert.is(draft.identity.timezone, 'UTC');
  assert.is(draft.behavior.hours.timezone, 'UTC');
});

test('new bots take the workspace language and time zone, templates included; bots made before keep theirs', async () => {
  const before = await created({ name: 'Before' });
  const s = await w.as('PATCH', '/api/v1/settings', { defaultLanguage: 'pt-BR', timezone: 'America/Sao_Paulo' });
  assert.is(s.status, 200);
  const { draft: blank } = await created({ name: 'Blank' });
  assert.is(blank.identity.language, 'pt-BR');
  assert.is(blank.identity.timezone, 'America/Sao_Paulo');
  assert.is(blank.behavior.hours.timezone, 'America/Sao_Paulo', 'opening hours are the workspace\'s hours');
  const { draft: support } = await created({ name: 'Support', templateId: 'customer-support' });
  assert.equal([support.identity.language, support.identity.timezone, support.behavior.hours.timezone], ['pt-BR', 'America/Sao_Paulo', 'America/Sao_Paulo']);
  assert.is(support.behavior.hours.enabled, true, 'the template\'s own hour settings stay');
  assert.is(support.identity.role, 'Support assistant');
  const old = await w.as('GET', `/api/v1/bots/${before.id}`);
  assert.equal([old.body.draft.identity.language, old.body.draft.identity.timezone], ['en', 'UTC']);
});

test('a language tag or zone longer than a bot setting takes is refused at the settings, naming the field', async () => {
  const long = await w.as('PATCH', '/api/v1/settings', { defaultLanguage: `en-${'x'.repeat(8)}-${'y'.repeat(8)}-${'z'.repeat(8)}-${'w'.repeat(8)}` });
  assert.is(long.status, 422, JSON.stringify(long.body));
  assert.match(long.body.error.message, /defaultLanguage/);
  const settings = await w.as('GET', '/api/v1/settings');
  assert.is(settings.body.defaultLanguage, 'pt-BR', 'a refused change changes nothing');
});

test.run();
