import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BOT_TEMPLATES, findBotTemplate } from '../../src/bots/templates.js';
import { parseOk } from './helpers.js';

test('every bot template is a valid config', () => {
  for (const t of BOT_TEMPLATES) parseOk(t.config);
});

test('template ids are unique and each has a name and a description', () => {
  assert.is(new Set(BOT_TEMPLATES.map((t) => t.id)).size, BOT_TEMPLATES.length);
  for (const t of BOT_TEMPLATES) assert.ok(t.name && t.description, t.id);
});

test('there is a blank template and templates for support, sales and a knowledge base', () => {
  assert.equal(BOT_TEMPLATES.map((t) => t.id), ['blank', 'customer-support', 'sales-lead-capture', 'knowledge-faq']);
  assert.equal(findBotTemplate('blank')?.config, {});
  assert.is(findBotTemplate('nope'), undefined);
});

test('the sales template collects a lead with a select field', () => {
  const config = parseOk(findBotTemplate('sales-lead-capture')!.config);
  assert.is(config.behavior.leadCapture.enabled, true);
  assert.equal(config.behavior.leadCapture.fields.map((f) => f.key), ['name', 'email', 'company', 'phone', 'team_size']);
});

test.run();
