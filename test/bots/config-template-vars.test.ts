import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  TEMPLATE_FIELDS,
  TEMPLATE_VARIABLES,
  contextFromIdentity,
  parseBotConfig,
  renderField,
  renderTemplate,
  type TemplatedField,
} from '../../src/bots/config/index.js';
import { parseOk, rejectedPaths } from './helpers.js';
import { setPath } from './spec-fields.js';

test('each templated field takes the variables the spec lists for it', () => {
  assert.equal(TEMPLATE_FIELDS['identity.instructions'], TEMPLATE_VARIABLES);
  assert.equal(TEMPLATE_FIELDS['identity.guardrails'], TEMPLATE_VARIABLES);
  assert.equal(TEMPLATE_FIELDS['welcome.message'], ['agent.name', 'agent.role', 'business.name']);
  for (const f of ['vision.webcam.consentText', 'texts.offline', 'greeting.text'] as const) assert.equal(TEMPLATE_FIELDS[f], ['agent.name']);
});

for (const [field, accepted] of Object.entries(TEMPLATE_FIELDS) as [TemplatedField, readonly string[]][]) {
  test(`${field} accepts ${accepted.length} variables and refuses the others, naming the field`, () => {
    for (const v of accepted) parseOk(setPath({}, field, `a {{${v}}} b {{ ${v} }}`));
    for (const v of TEMPLATE_VARIABLES.filter((v) => !accepted.includes(v))) {
      assert.equal(rejectedPaths(setPath({}, field, `Hello {{${v}}}`)), [field], v);
    }
    assert.equal(rejectedPaths(setPath({}, field, 'Hi {{agent.nam}}')), [field]);
  });
}

test('the refusal says which variable is wrong and what the field accepts', () => {
  try {
    parseBotConfig({ greeting: { text: 'Hi {{visitor.name}}' } });
    assert.unreachable('accepted');
  } catch (err) {
    assert.is((err as Error).message, 'greeting.text: template variable {{visitor.name}} is not accepted here; this text accepts {{agent.name}}');
  }
});

test('fields that are not templated keep braces as plain text', () => {
  const c = parseOk({ texts: { placeholder: '{{whatever}}' }, identity: { personality: { text: 'answer in {{json}}' } } });
  assert.is(c.texts.placeholder, '{{whatever}}');
});

test('unmatched braces are plain text, not variables', () => {
  parseOk({ greeting: { text: 'a {{ b } c }} {agent.name}' } });
});

const ctx = {
  agent: { name: 'Ava', role: 'Helper' },
  business: { name: 'Acme' },
  page: { url: 'https://acme.test/pricing', title: 'Pricing' },
  visitor: { name: 'Kim', email: 'kim@acme.test', verified: true },
};

test('renderTemplate fills every variable', () => {
  const text = TEMPLATE_VARIABLES.map((v) => `{{${v}}}`).join('|');
  assert.is(renderTemplate(text, ctx), 'Ava|Helper|Acme|https://acme.test/pricing|Pricing|Kim|kim@acme.test');
});

test('business.name falls back to the agent name when empty', () => {
  assert.is(renderTemplate('{{business.name}}', { ...ctx, business: { name: '' } }), 'Ava');
  assert.is(renderTemplate('{{business.name}}', { agent: { name: 'Ava' } }), 'Ava');
});

test('visitor name and email are filled only for verified visitors', () => {
  const unverified = { ...ctx, visitor: { name: 'Kim', email: 'kim@acme.test', verified: false } };
  assert.is(renderTemplate('[{{visitor.name}}][{{visitor.email}}]', unverified), '[][]');
  assert.is(renderTemplate('[{{visitor.name}}]', { agent: { name: 'Ava' } }), '[]');
});

test('unknown variables and variables a field does not accept render empty', () => {
  assert.is(renderTemplate('a{{nope}}b', ctx), 'ab');
  assert.is(renderField('greeting.text', '{{agent.name}} {{visitor.name}}', ctx), 'Ava ');
  assert.is(renderField('welcome.message', "I'm {{agent.name}} from {{ business.name }}", ctx), "I'm Ava from Acme");
});

test('the default welcome message renders from a config identity', () => {
  const config = parseBotConfig({ identity: { agentName: 'Max' } });
  const c = contextFromIdentity(config.identity, { page: { url: 'https://x.test' } });
  assert.is(renderField('welcome.message', config.welcome.message, c), "Hi! I'm Max. How can I help you today?");
  assert.is(renderField('identity.instructions', '{{business.name}} {{page.url}}', c), 'Max https://x.test');
});

test('values are inserted once, so a value that looks like a variable is not filled again', () => {
  assert.is(renderTemplate('{{visitor.name}}', { agent: { name: 'Ava' }, visitor: { name: '{{agent.name}}', verified: true } }), '{{agent.name}}');
});


test('the customer-support template reads right when the page and the visitor are not known, and greets a known visitor', async () => {
  const { BOT_TEMPLATES } = await import('../../src/bots/templates.js');
  const support = BOT_TEMPLATES.find((t) => t.id === 'customer-support')!;
  const config = parseBotConfig(support.config);
  const unknown = renderField('identity.instructions', config.identity.instructions, contextFromIdentity(config.identity));
  assert.not.match(unknown, /\(\s*\)|:\s*[,.;]|,\s*\./, unknown);
  assert.match(unknown, /Visitor's name: not known; when it is known, greet them by it\./);
  const known = renderField('identity.instructions', config.identity.instructions, contextFromIdentity(config.identity, {
    page: { title: 'Pricing', url: 'https://acme.test/pricing' }, visitor: { name: 'Kim', verified: true },
  }));
  assert.match(known, /Page the visitor is on: Pricing, https:\/\/acme\.test\/pricing\. Visitor's name: Kim;/);
  // Texts a visitor reads keep an unknown value empty (the welcome message takes no visitor variables).
  assert.is(renderField('welcome.message', '[{{agent.role}}]', { agent: { name: 'Ava' } }), '[]');
});

test.run();
