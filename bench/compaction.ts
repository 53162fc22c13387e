/**
 * What compaction costs the visitor (issue 27): time from a visitor's message to the reply's first delta, for an
 * ordinary turn and for the turn that crosses brain.compactAtTokens, with every model call of the fake provider
 * scripted to take `delayMs` before it answers. Each conversation: two long questions (the second crosses 80 % of
 * the limit), a pause for reading and typing, then a third that takes the history past the limit.
 *
 *   npx tsx bench/compaction.ts [conversations=10] [delayMs=300] [pauseMs=1000]
 *
 * The model calls come in the same order with or without compaction ahead of need (answer, answer, summary,
 * answer), so the same script runs against an older checkout for the "before" figure.
 */
import { performance } from 'node:perf_hooks';
import { startChatWorld, type Visitor } from '../test/chat/helpers.js';

const N = Math.max(1, Number(process.argv[2]) || 10);
const DELAY_MS = Number(process.argv[3]) || 300;
const PAUSE_MS = Number(process.argv[4]) || 1000;
const question = (label: string) => `${label} ` + 'lorem ipsum '.repeat(1166);

/** Milliseconds from sending `text` to the first delta frame, then waits for the stored reply. */
async function firstDelta(v: Visitor, text: string): Promise<number> {
  const start = performance.now();
  v.say(text);
  let at = 0;
  await new Promise<void>((resolve) => {
    const onMessage = (data: Buffer) => {
      if (JSON.parse(String(data)).t !== 'delta') return;
      at = performance.now() - start;
      v.ws.off('message', onMessage);
      resolve();
    };
    v.ws.on('message', onMessage);
  });
  await v.next('message', (f) => f.message.role === 'assistant', 20_000);
  return at;
}

const ordinary: number[] = [];
const crossing: number[] = [];
// A world per conversation: the summary the third answer may start takes no other conversation's scripted turn.
for (let i = 0; i < N; i++) {
  const w = await startChatWorld({ config: { brain: { compactAtTokens: 8000 }, security: { maxMessageChars: 20000 } } });
  try {
    const v = await w.visitor();
    const turn = (text: string) => ({ text, delayMs: DELAY_MS });
    w.fake.script([turn('answer 0'), turn('answer 1'), turn('SUMMARY: questions 0 and 1'), turn('answer 2')]);
    await firstDelta(v, question('question 0'));
    ordinary.push(await firstDelta(v, question('question 1')));
    await new Promise((r) => setTimeout(r, PAUSE_MS));
    crossing.push(await firstDelta(v, question('question 2')));
    await v.close();
  } finally {
    await w.close();
  }
}

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const fmt = (xs: number[]) => `median ${median(xs).toFixed(0)} ms (min ${Math.min(...xs).toFixed(0)}, max ${Math.max(...xs).toFixed(0)})`;
console.log(`${N} conversations, every model call ${DELAY_MS} ms, pause ${PAUSE_MS} ms before the third question`);
console.log(`ordinary turn, time to first delta:       ${fmt(ordinary)}`);
console.log(`turn past compactAtTokens, first delta:   ${fmt(crossing)}`);
if (process.env.BENCH_VERBOSE) console.log({ ordinary, crossing });
