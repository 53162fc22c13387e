import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { submitLeadForm } from '../../src/conversation/lead-capture.js';
import { safeCell } from '../../src/leads/service.js';
import { createToken } from '../helpers/auth.js';
import { chattingVisitor, startTeamWorld, type TeamWorld } from '../team/helpers.js';

/** RFC 4180 reading, enough to check what a spreadsheet would see (quoted fields, doubled quotes, CRLF). */
function parse(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [], cell = '', quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { cell += '"'; i++; } else if (c === '"') quoted = false; else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') { row.push(cell); cell = ''; }
    else if (c === '\r' && text[i + 1] === '\n') { row.push(cell); rows.push(row); row = []; cell = ''; i++; }
    else cell += c;
  }
  if (cell || row.length) { row.push(cell); rows.push(row); }
  return rows;
}

const FIELDS = [
  { key: 'name', label: 'Name', type: 'text', required: true },
  { key: 'email', label: 'Email', type: 'email', required: true },
  { key: 'phone', label: 'Phone', type: 'tel', required: false },
  { key: 'plan', label: 'Plan', type: 'select', required: false, options: ['Basic', 'Pro'] },
];

let w: TeamWorld;
test.before(async () => { w = await startTeamWorld({ behavior: { leadCapture: { enabled: true, when: 'tool', fields: FIELDS } } }); });
test.after(async () => { await w.stop(); });

test('leads arrive by the agent\'s tool, the widget form and the API, and come out in CSV', async () => {
  const live = await w.live(w.owner);
  await live.event('hello');

  // The agent first passes a bad e-mail (refused, the model is told why), then a good one.
  w.fake.script([
    { toolCalls: [{ name: 'capture_lead', arguments: { name: 'Ann Tool', email: 'not-an-email' } }] },
    { toolCalls: [{ name: 'capture_lead', arguments: { name: 'Ann Tool', email: 'ann@example.com', plan: 'Pro' } }] },
    { text: 'Thanks Ann, saved.' },
  ]);
  const { visitor, conversationId } = await chattingVisitor(w, 'I am Ann, ann@example.com, interested in Pro');
  const byTool = await live.event('lead.captured', (d) => d.conversationId === conversationId);
  assert.equal(byTool.data.fields, { name: 'Ann Tool', email: 'ann@example.com', plan: 'Pro' });
  assert.equal(Object.keys(byTool.data).sort(), ['botId', 'conversationId', 'fields', 'leadId', 'workspaceId']);
  const toolResults = w.fake.requests.filter((r) => r.path.endsWith('/chat/completions')).map((r) => JSON.stringify(r.body.messages));
  assert.ok(toolResults.some((m) => m.includes('fields.email: not a valid e-mail address')), 'the model learns what was wrong');

  const visitorId = (await visitor.frames.find((f) => f.t === 'ready'))!.visitorId;
  const bad = await submitLeadForm(w.server.app, { conversationId, visitorId, fields: { name: 'Bob Form', email: 'bob@example.com', plan: 'Gold' } });
  assert.equal(bad, { ok: false, code: 'invalid', message: 'fields.plan: choose one of Basic, Pro' });
  const missing = await submitLeadForm(w.server.app, { conversationId, visitorId, fields: { name: ' ', email: 'bob@example.com' } }); // a known name completes an answer that leaves it out (known.ts), an emptied one is refused
  assert.equal(missing, { ok: false, code: 'invalid', message: 'fields.name: Name is required' });
  const stranger = await submitLeadForm(w.server.app, { conversationId, visitorId: 'vis_other', fields: { name: 'x', email: 'x@example.com' } });
  assert.is(stranger.ok ? '' : stranger.code, 'forbidden');
  const form = await submitLeadForm(w.server.app, { conversationId, visitorId, fields: { name: 'Bob Form', email: 'bob@example.com', phone: '+1 (555) 010-9999' } });
  assert.ok(form.ok);
  await live.event('lead.captured', (d) => d.fields.name === 'Bob Form');

  const writer = await createToken(w.server, w.owner, ['leads:write']);
  const invalid = await w.server.request('POST', '/api/v1/leads', { body: { botId: w.botId, fields: { name: 'C', email: 'c@example.com', phone: 'call me' } }, headers: writer.headers });
  assert.is(invalid.status, 422);
  assert.match(invalid.body.error.message, /fields\.phone/);
  const tricky = '=HYPERLINK("http://evil.example","click")';
  const api = await w.server.request('POST', '/api/v1/leads', { body: { botId: w.botId, fields: { name: tricky, email: 'carol@example.com', plan: 'Basic' } }, headers: writer.headers });
  assert.is(api.status, 201);
  assert.is(api.body.conversationId, null);
  assert.is(api.body.source, 'api');
  assert.is(api.body.status, 'new');
  const byApi = await live.event('lead.captured', (d) => d.leadId === api.body.id);
  assert.is(byApi.data.conversationId, null);

  const reader = await createToken(w.server, w.owner, ['leads:read']);
  const page1 = await w.server.request('GET', '/api/v1/leads?limit=2', { headers: reader.headers });
  assert.equal(page1.body.items.map((l: { source: string }) => l.source), ['api', 'form'], 'newest first');
  const page2 = await w.server.request('GET', `/api/v1/leads?limit=2&before=${page1.body.nextBefore}`, { headers: reader.headers });
  assert.equal(page2.body.items.map((l: { source: string }) => l.source), ['tool']);
  assert.is(page2.body.nextBefore, null);

  const csv = await w.server.fetch('/api/v1/leads.csv', { headers: reader.headers });
  assert.is(csv.status, 200);
  assert.match(csv.headers.get('content-type') ?? '', /^text\/csv/);
  const rows: string[][] = parse((await csv.text()).replace(/^\uFEFF/, ''));
  assert.equal(rows[0], ['leadId', 'createdAt', 'status', 'source', 'botId', 'conversationId', 'name', 'email', 'plan', 'phone']);
  assert.is(rows.length, 4);
  assert.equal(rows[1].slice(6), [`'${tricky}`, 'carol@example.com', 'Basic', ''], 'a formula is neutralised, quotes and commas survive');
  assert.equal(rows[2].slice(6), ['Bob Form', 'bob@example.com', 'Pro', "'+1 (555) 010-9999"], 'the plan the visitor gave the agent completes the form');
  assert.equal(rows[3].slice(6), ['Ann Tool', 'ann@example.com', 'Pro', '']);
  await visitor.close();
  await live.close();
});

test('a lead\'s status moves along the pipeline and only admins may delete it', async () => {
  const writer = await createToken(w.server, w.owner, ['leads:write']);
  const created = await w.server.request('POST', '/api/v1/leads', { body: { botId: w.botId, fields: { name: 'Dan', email: 'dan@example.com' } }, headers: writer.headers });
  const id = created.body.id;
  const patched = await w.server.request('PATCH', `/api/v1/leads/${id}`, { body: { status: 'qualified' }, headers: writer.headers });
  assert.is(patched.body.status, 'qualified');
  const wrong = await w.server.request('PATCH', `/api/v1/leads/${id}`, { body: { status: 'hot' }, headers: writer.headers });
  assert.is(wrong.status, 422);
  assert.is((await w.server.request('DELETE', `/api/v1/leads/${id}`, { headers: writer.headers })).status, 403, 'leads:write alone is not admin');
  assert.is((await w.server.request('DELETE', `/api/v1/leads/${id}`, { headers: w.agent.headers })).status, 403, 'an agent session is not admin');
  assert.is((await w.server.request('DELETE', `/api/v1/leads/${id}`, { headers: w.owner.headers })).status, 204);
  assert.is((await w.server.request('PATCH', `/api/v1/leads/${id}`, { body: { status: 'won' }, headers: writer.headers })).status, 404);
  const unknownBot = await w.server.request('POST', '/api/v1/leads', { body: { botId: 'bot_nope', fields: { name: 'x' } }, headers: writer.headers });
  assert.is(unknownBot.status, 404);
});

test('a spreadsheet formula at the start of a cell is made plain text', () => {
  for (const s of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) assert.is(safeCell(s), `'${s}`);
  assert.is(safeCell('plain'), 'plain');
  assert.is(safeCell('a=b'), 'a=b');
});

test.run();
