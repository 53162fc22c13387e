/**
 * A bench's helper process (the chat bench's server or fake provider): a bench .ts file run under tsx, or (dist)
 * its build in dist/bench/ run by plain node with the Node flags `npm start` gives the server (package.json's
 * start script), as `npm start` runs it (bench/build.ts builds it). The
 * child's first JSON line on stdout says it is ready; anything else it prints (e.g. --trace-gc) goes to stderr.
 * `call` sends an IPC command and resolves with the child's answer.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..');

export interface Child { proc: ChildProcess; ready: Record<string, unknown>; call<T = unknown>(cmd: string): Promise<T> }

/** The Node flags of `npm start` (package.json: "node <flags> dist/src/main.js"). */
export function startFlags(): string[] {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  return start.split(/\s+/).filter((w) => w.startsWith('--'));
}

/** `dist`: true runs the build in dist/, a folder name the build in that folder (bench/build.ts, buildPrivately). */
export async function startChild(file: string, argv: string[], nodeFlags: string[] = [], dist: boolean | string = false): Promise<Child> {
  const built = typeof dist === 'string' ? dist : join(root, 'dist');
  const entry = dist ? [join(built, 'bench', file.replace(/\.ts$/, '.js'))] : ['--import', 'tsx', join(here, file)];
  // The caller's flags come after npm start's, so they win (e.g. BENCH_SERVER_FLAGS=--max-semi-space-size=16).
  const proc = spawn(process.execPath, [...(dist ? startFlags() : []), ...nodeFlags, ...entry, ...argv], { cwd: root, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const ready = await new Promise<Record<string, unknown>>((resolve, reject) => {
    let buf = '';
    let done = false;
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => {
      if (done) { process.stderr.write(c); return; }
      buf += c;
      for (let nl = buf.indexOf('\n'); nl >= 0 && !done; nl = buf.indexOf('\n')) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line.startsWith('{"')) { done = true; resolve(JSON.parse(line)); if (buf) process.stderr.write(buf); }
        else process.stderr.write(`${line}\n`);
      }
    });
    proc.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
  });
  const call = <T>(cmd: string) => new Promise<T>((resolve) => { proc.once('message', (m) => resolve(m as T)); proc.send({ cmd }); });
  return { proc, ready, call };
}
