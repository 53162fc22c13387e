import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeClock } from '../../src/kernel/clock.js';
import { requestHandoff } from '../../src/team/handoff.js';
import { createToken, type TestToken } from '../helpers/auth.js';
import { chattingVisitor, startTeamWorld, type FrameClient, type TeamWorld } from '../team/helpers.js';

const clock = new FakeClock(Date.UTC(2026, 0, 1, 10, 0));
let w: TeamWorld;
let token: TestToken;

test.before(async () => {
  w = await startTeamWorld({ behavior: { handoff: { enabled: true, acceptTimeoutSec: 60, offlineAction: 'message' }, feedback: { csat: true } } }, { clock });
  token = await createToken(w.server, w.owner, ['analytics:read']);
});
test.after(async () => { await w.stop(); });

const call = (method: string, path: string) => w.server.request(method, path, { headers: w.agent.headers });

/** The team closes the conversation and the visitor rates it. */
async function closeAndRate(visitor: FrameClient, conversationId: string, value: number) {
  await call('POST', `/api/v1/conversations/${conversationId}/close`);
  await visitor.frame('ended');
  visitor.send({ t: 'csat', value });
  await visitor.frame('feedback_ok', (f) => f.kind === 'csat');
  await visitor.close();
}

test('CSAT and handoff accepted/resolved figures match scripted team work exactly', async () => {
  const live = await w.live(w.agent);
  await live.event('presence.changed', (d) => d.presence === 'online');

  // A: handoff requested, accepted by a takeover, resolved by the release; rated 4.
  const a = await chattingVisitor(w, 'I need a person');
  const ha = await requestHandoff(w.server.app, w.server.services, { conversationId: a.conversationId, reason: null, source: 'visitor' });
  assert.ok(ha.ok && ha.available);
  await call('POST', `/api/v1/conversations/${a.conversationId}/takeover`);
  await call('POST', `/api/v1/conversations/${a.conversationId}/release`);
  await live.event('handoff.resolved', (d) => d.conversationId === a.conversationId);
  await closeAndRate(a.visitor, a.conversationId, 4);

  // B: a takeover and release without a request (not a resolved handoff), then a request accepted and never
  // released: closing the conversation ends it without handoff.resolved. Rated 1.
  const b = await chattingVisitor(w, 'hello');
  await call('POST', `/api/v1/conversations/${b.conversationId}/takeover`);
  await call('POST', `/api/v1/conversations/${b.conversationId}/release`);
  await live.event('handoff.resolved', (d) => d.conversationId === b.conversationId && d.handoffId === null);
  const hb = await requestHandoff(w.server.app, w.server.services, { conversationId: b.conversationId, reason: 'billing', source: 'agent' });
  assert.ok(hb.ok && hb.available);
  await call('POST', `/api/v1/conversations/${b.conversationId}/takeover`);
  await live.event('handoff.accepted', (d) => d.conversationId === b.conversationId);
  await closeAndRate(b.visitor, b.conversationId, 1);

  // C: a request nobody takes (times out); no rating.
  const c = await chattingVisitor(w, 'anyone?');
  const hc = await requestHandoff(w.server.app, w.server.services, { conversationId: c.conversationId, reason: null, source: 'visitor' });
  assert.ok(hc.ok && hc.available);
  await clock.advance(60_000);
  await c.visitor.frame('message', (f) => f.message.role === 'system_event');
  // The team takes C over later from the inbox: no request is waiting, but the conversation was taken over.
  assert.is((await call('POST', `/api/v1/conversations/${c.conversationId}/takeover`)).status, 200);
  await c.visitor.close();
  await live.close();

  const ws = w.owner.workspaceId;
  const stored = await w.server.app.records.handoffs.find({ workspaceId: ws }, { sort: [['_id', 1]] });
  assert.equal(stored.map((h) => h.state), ['resolved', 'resolved', 'unanswered'], 'A released, B closed while accepted, C timed out');

  const sr = await w.server.request('GET', '/api/v1/analytics/summary', { headers: token.headers });
  assert.is(sr.status, 200, JSON.stringify(sr.body));
  const s = sr.body;
  // takenOver counts every takeover (A, B twice, C after its request went unanswered); accepted only those that
  // answered a waiting request.
  assert.equal(s.handoffs, { requested: 3, accepted: 2, resolved: 1, takenOver: 4 });
  assert.equal(s.feedback, { thumbsUp: 0, thumbsDown: 0, csatCount: 2, csatAverage: 2.5 });
  const series = (await w.server.request('GET', '/api/v1/analytics/timeseries?days=1', { headers: token.headers })).body;
  assert.equal(series.items.map((d: { handoffs: unknown }) => d.handoffs), [{ requested: 3, accepted: 2, resolved: 1, takenOver: 4 }]);
});

test.run();
