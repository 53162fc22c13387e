import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../src/kernel/log.js';
import { failureReason } from '../../src/knowledge/failure-reason.js';
import { UnsupportedDocumentError } from '../../src/documents/parse.js';

// Issue 40, item 10: an internal JavaScript error was shown as a knowledge source's failure reason.
function capture() {
  const lines: any[] = [];
  const log = createLogger('info', { write: (l: string) => { lines.push(JSON.parse(l)); } });
  return { log, lines };
}

test('an internal JavaScript error reads as a server fault with an id; the details are in the log under that id', () => {
  const { log, lines } = capture();
  let err: unknown;
  try { (undefined as unknown as { pages: number[] }).pages.map(String); } catch (e) { err = e; }
  const reason = failureReason(log, err, { sourceId: 'ks_1', ref: 'https://example.com/a' });
  assert.match(reason, /^could not be processed because of an error in the server; see the server log \(id [0-9a-f]{8}\)$/);
  assert.not.match(reason, /undefined|pages|TypeError/);
  const id = /id ([0-9a-f]{8})/.exec(reason)![1];
  assert.is(lines.length, 1);
  assert.is(lines[0].failureId, id);
  assert.is(lines[0].sourceId, 'ks_1');
  assert.match(lines[0].err.message, /Cannot read properties of undefined/);
  assert.match(lines[0].err.stack, /failure-reason\.test\.ts/);
});

test('a reason the server gives on purpose is shown as it is, and not logged as a fault', () => {
  const { log, lines } = capture();
  assert.is(failureReason(log, new UnsupportedDocumentError('unsupported file type: send PDF, Markdown, text or HTML'), {}), 'unsupported file type: send PDF, Markdown, text or HTML');
  assert.is(failureReason(log, new Error('the site answered 404'), {}), 'the site answered 404');
  assert.is(lines.length, 0);
});

test.run();
