import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mcpToolName } from '../../src/tools/mcp-source.js';
import { slugOf } from '../../src/tools/mcp-servers.js';
import { redactSecrets } from '../../src/tools/secrets.js';
import { renderTemplate, templateRefs } from '../../src/tools/template.js';

const VALID = /^[a-zA-Z0-9_-]{1,64}$/;

test('server names become short lowercase slugs', () => {
  assert.is(slugOf('Acme CRM (prod)'), 'acme_crm_prod');
  assert.is(slugOf('!!!'), 'server');
  assert.ok(slugOf('a very long server name that keeps going').length <= 20);
});

test('MCP tool names shown to the model are valid for providers and unique even when cut', () => {
  assert.is(mcpToolName('crm', 'search.contacts/v2'), 'mcp_crm_search_contacts_v2');
  const long1 = mcpToolName('a_long_server_slug_x', 'x'.repeat(80) + 'one');
  const long2 = mcpToolName('a_long_server_slug_x', 'x'.repeat(80) + 'two');
  assert.ok(VALID.test(long1) && VALID.test(long2));
  assert.is(long1.length, 64);
  assert.is.not(long1, long2);
});

test('templates encode values for where they land', () => {
  const secrets = new Map([['KEY', 'a b&c']]);
  const args = { q: 'x/y z', n: 2, nested: { id: 'i1' } };
  assert.is(renderTemplate('https://h/s?q={{args.q}}&k={{ secrets.KEY }}', args, secrets, 'url'), 'https://h/s?q=x%2Fy%20z&k=a%20b%26c');
  assert.is(renderTemplate('{"q": {{args.q}}, "n": {{args.n}}, "id": {{args.nested.id}}, "m": {{args.missing}}}', args, secrets, 'json'), '{"q": "x/y z", "n": 2, "id": "i1", "m": null}');
  assert.is(renderTemplate('Bearer {{secrets.KEY}}', args, secrets, 'text'), 'Bearer a b&c');
  assert.throws(() => renderTemplate('{{secrets.OTHER}}', args, secrets, 'text'), /secret OTHER is not set/);
});

test('template references are listed, and unknown placeholders named', () => {
  assert.equal(templateRefs('{{args.a}}/{{secrets.B}}').refs, { args: ['a'], secrets: ['B'] });
  assert.match(String(templateRefs('{{ process.env }}').problem), /unknown placeholder \{\{process.env\}\}/);
});

test('redaction replaces raw, URL-encoded and JSON-escaped forms of a secret', () => {
  const values = new Map([['K', 'p@ss "w/rd"']]);
  const text = `raw p@ss "w/rd" url ${encodeURIComponent('p@ss "w/rd"')} json ${JSON.stringify('p@ss "w/rd"')}`;
  const out = redactSecrets(text, values);
  assert.not.ok(out.includes('p@ss'));
  assert.is(out.split('[secret K]').length - 1, 3);
});

test.run();
