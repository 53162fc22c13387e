import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { encodeRecords } from '../../src/store/encoded.js';
import { openEmbeddedLexical } from '../../src/store/lexical-embedded.js';
import { threadNiceValues } from '../helpers/thread-nice.js';

const passage = (i: number, text: string) => ({ _id: `kch_big_${String(i).padStart(5, '0')}`, workspaceId: 'ws_1', sourceId: 'ks_1', documentId: 'kdoc_big', index: i, heading: 'Guide', title: 'Big guide', url: null, text });

test("a large document's entries are written off the event loop: searches meanwhile find its old passages, then its new ones", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-lexical-writer-'));
  const lex = openEmbeddedLexical(dir);
  try {
    await lex.replaceDocument('ws_1', 'kdoc_big', encodeRecords([passage(0, 'Garlic is planted in autumn.')]));
    assert.is((await lex.search('ws_1', ['garlic'], { limit: 5 }))[0]?.id, 'kch_big_00000');
    // 4,000 passages (2 MB of text), serialised as the chunking worker serialises them.
    const rows = encodeRecords(Array.from({ length: 4000 }, (_, i) => passage(i, `Peppers need warmth. ${'Water them in the morning and keep the soil moist. '.repeat(10)}${i}`)));
    let written = false;
    const writing = lex.replaceDocument('ws_1', 'kdoc_big', rows).then(() => { written = true; });
    // The next turn of the event loop comes while the write is still under way (it runs on the writer's thread).
    const during = await new Promise<{ written: boolean; garlic: number; peppers: number }>((resolve) => setImmediate(async () => resolve({
      written, garlic: (await lex.search('ws_1', ['garlic'], { limit: 5 })).length, peppers: (await lex.search('ws_1', ['peppers'], { limit: 5 })).length,
    })));
    assert.equal(during, { written: false, garlic: 1, peppers: 0 }, 'the loop turned before the write was done, and a search saw the old passage');
    await writing;
    assert.is((await lex.search('ws_1', ['garlic'], { limit: 5 })).length, 0);
    assert.is((await lex.search('ws_1', ['peppers'], { limit: 5 })).length, 5);
    assert.is(await lex.count({ workspaceId: 'ws_1', documentId: 'kdoc_big' }), 4000);
    // The writer yields a core to the event loop: its thread's nice value is the loop's plus 10 (Linux, per thread).
    const nice = threadNiceValues();
    assert.ok(nice.others.includes(Math.min(19, nice.main + 10)), `a thread at nice ${nice.main + 10} (the loop's is ${nice.main}; threads: ${nice.others.join(', ')})`);
  } finally {
    await lex.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the writes keep their order, and an index in memory is written on the caller\'s thread', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sc-lexical-writer-'));
  for (const lex of [openEmbeddedLexical(dir), openEmbeddedLexical(null)]) {
    const a = lex.replaceDocument('ws_1', 'kdoc_big', encodeRecords([passage(0, 'Garlic.'), passage(1, 'Onions.')]));
    const b = lex.deleteWhere({ workspaceId: 'ws_1', documentId: 'kdoc_big' });
    const c = lex.upsert([{ id: 'kch_x', workspaceId: 'ws_1', sourceId: 'ks_1', documentId: 'kdoc_x', title: 'X', text: 'Leeks.' }]);
    const d = lex.setStamp('ws_1', 'kdoc_x', '1.2.3');
    await Promise.all([a, c, d]);
    assert.is(await b, 2);
    assert.is(await lex.count({ workspaceId: 'ws_1' }), 1);
    assert.is(lex.stampOf('kdoc_x'), '1.2.3');
    await lex.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

test.run();
