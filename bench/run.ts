// `npm run bench [name ...]`: runs the named benchmarks (default: all) one after another, each in its own
// process with its default, bounded settings. Every benchmark prints its figures next to a baseline measured
// in the same run. Loopback only.
import { spawnSync } from 'node:child_process';

const ALL = ['chat', 'stream-memory', 'rest', 'idle-sockets', 'webhooks', 'knowledge', 'analytics', 'voice', 'admin-size'];
const names = process.argv.slice(2).length ? process.argv.slice(2) : ALL;
let failed = 0;
for (const name of names) {
  if (!ALL.includes(name)) { console.error(`unknown benchmark ${name}; choose from ${ALL.join(', ')}`); process.exit(2); }
  console.log(`\n=== bench/${name}.ts ===`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.ts`], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
