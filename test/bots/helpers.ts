/** Shared checks for the bot config tests. */
import * as assert from 'uvu/assert';
import { ApiError } from '../../src/kernel/errors.js';
import { parseBotConfig, type BotConfig } from '../../src/bots/config/index.js';

/** The paths an invalid config is rejected with (one per issue); fails the test when it is accepted. */
export function rejectedPaths(input: unknown, parse: (input: unknown) => unknown = parseBotConfig): string[] {
  try {
    parse(input);
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    assert.is(err.code, 'invalid');
    assert.is(err.status, 422);
    return (err.details as { path: string }[]).map((d) => d.path);
  }
  assert.unreachable(`accepted ${JSON.stringify(input).slice(0, 200)}`);
  return [];
}

/** Parses, or fails with a plain assertion (uvu cannot print an ApiError: it misreads its `details`). */
export function parseOk(input: unknown): BotConfig {
  try {
    return parseBotConfig(input);
  } catch (err) {
    throw new assert.Assertion({ message: `rejected: ${(err as Error).message.slice(0, 300)}`, generated: false, operator: 'ok', expects: true, actual: false });
  }
}
