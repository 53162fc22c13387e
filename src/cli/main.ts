#!/usr/bin/env node
/**
 * service-chat: the operator's command line for recovery and operations. Runs on the server's machine (or with
 * the same MONGODB_URL) with the server's environment; never through the API. Exit codes: 0 done, 1 failed (the
 * message says why and what to do), 2 wrong usage.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { listAccounts, resetPassword, signInLink } from './accounts.js';
import { CommandError, cliConfig, UsageError } from './context.js';
import { backup, checkDataDir, restore } from './data-dir.js';
import { effectiveConfig } from './show-config.js';
import { listTokens, revokeToken } from './tokens.js';

type Values = Record<string, string | boolean | undefined>;
interface Command { usage: string; about: string; options: Record<string, { type: 'string' | 'boolean' }>; run(v: Values, args: string[], out: (l: string) => void): Promise<void> | void }

const COMMON = { 'data-dir': { type: 'string' as const }, help: { type: 'boolean' as const } };
const cfg = (v: Values) => cliConfig({ dataDir: v['data-dir'] as string | undefined });

const COMMANDS: Record<string, Command> = {
  accounts: {
    usage: 'accounts [--json]', about: 'list accounts (e-mail, role, name, workspace)',
    options: { json: { type: 'boolean' } },
    run: (v, _a, out) => listAccounts(cfg(v), out, !!v.json),
  },
  'reset-password': {
    usage: 'reset-password --email <address> [--password <new>]', about: 'set a new password (printed when generated) and end the account\'s sessions',
    options: { email: { type: 'string' }, password: { type: 'string' } },
    run: (v, _a, out) => resetPassword(cfg(v), v.email as string | undefined, v.password as string | undefined, out),
  },
  'signin-link': {
    usage: 'signin-link --email <address> [--minutes 15]', about: 'print a link that signs the account in once (built on PUBLIC_URL)',
    options: { email: { type: 'string' }, minutes: { type: 'string' } },
    run: (v, _a, out) => signInLink(cfg(v), v.email as string | undefined, Number(v.minutes ?? 15), out),
  },
  tokens: {
    usage: 'tokens list [--json] | tokens revoke <id>', about: 'list API tokens, or revoke one by id',
    options: { json: { type: 'boolean' } },
    run: (v, args, out) => {
      if (args[0] === 'list' || args[0] === undefined) return listTokens(cfg(v), out, !!v.json);
      if (args[0] === 'revoke') return revokeToken(cfg(v), args[1], out);
      throw new UsageError(`tokens: unknown action ${args[0]}; use list or revoke <id>`);
    },
  },
  config: {
    usage: 'config', about: 'show the effective configuration from this environment (secrets masked)',
    options: {},
    run: (v, _a, out) => out(JSON.stringify(effectiveConfig(cfg(v)), null, 2)),
  },
  check: {
    usage: 'check', about: 'check the data folder: permissions, free space, lock, secret, database integrity',
    options: {},
    run: (v, _a, out) => {
      const problems = checkDataDir(cfg(v), out);
      if (problems.length) throw new CommandError(`${problems.length} problem(s) found`);
    },
  },
  backup: {
    usage: 'backup --out <new folder>', about: 'copy the embedded store, stored files and secret consistently, also while the server runs',
    options: { out: { type: 'string' } },
    run: (v, _a, out) => backup(cfg(v), v.out as string | undefined, out),
  },
  restore: {
    usage: 'restore --from <backup folder>', about: 'put a backup in place (the server must be stopped; the current data is kept aside)',
    options: { from: { type: 'string' } },
    run: (v, _a, out) => restore(cfg(v), v.from as string | undefined, out),
  },
};

function overview(): string {
  const rows = Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(54)} ${c.about}`);
  return [
    'service-chat <command> [options]', '', 'Commands:', ...rows, '',
    'Every command reads the server\'s environment (DATA_DIR, MONGODB_URL, SECRET_KEY, PUBLIC_URL...);',
    '--data-dir <folder> overrides DATA_DIR. service-chat <command> --help shows one command.',
    'Exit codes: 0 done, 1 failed (the message says why), 2 wrong usage.',
  ].join('\n');
}

export async function runCli(argv: string[], out: (l: string) => void = (l) => process.stdout.write(l + '\n'), err: (l: string) => void = (l) => process.stderr.write(l + '\n')): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') { out(overview()); return name ? 0 : 2; }
  const cmd = COMMANDS[name];
  if (!cmd) { err(`unknown command ${name}\n\n${overview()}`); return 2; }
  try {
    const { values, positionals } = parseArgs({ args: rest, options: { ...COMMON, ...cmd.options }, allowPositionals: true, strict: true });
    if (values.help) { out(`service-chat ${cmd.usage} [--data-dir <folder>]\n\n${cmd.about}.`); return 0; }
    await cmd.run(values as Values, positionals, out);
    return 0;
  } catch (e) {
    if (e instanceof UsageError || (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) { err(`${name}: ${(e as Error).message}\nusage: service-chat ${cmd.usage}`); return 2; }
    if (e instanceof CommandError) { err(`${name}: ${e.message}`); return 1; }
    err(`${name} failed: ${(e as Error)?.stack ?? String(e)}`);
    return 1;
  }
}

// Run as a program (also through the bin link), not when a test imports runCli.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await runCli(process.argv.slice(2));
}
