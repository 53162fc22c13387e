import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * Whether uWebSockets.js can load on this runtime, checked before it is imported: its own loader answers
 * any failure with "supports only Node.js versions …", even when the Node version is fine and the system's
 * glibc is too old for the build (the builds for Node 22 and later ask for glibc 2.38).
 */
export interface RuntimeFacts {
  nodeVersion: string;
  platform: string;
  arch: string;
  /** NODE_MODULE_VERSION, which names the uWS build a Node loads. */
  abi: string;
  /** The C library's version on Linux with glibc; null on musl and on other systems. */
  glibc: string | null;
  /** The ABIs uWS ships builds for on this platform and architecture. */
  builds: string[];
  /** The newest glibc the build for an ABI asks for (null: none, or not Linux); read only when needed. */
  glibcNeeded(abi: string): string | null;
}

/** Node major versions by NODE_MODULE_VERSION, for messages (engines allows 20.19 and later). */
const NODE_BY_ABI: Record<string, number> = { '115': 20, '120': 21, '127': 22, '131': 23, '137': 24, '141': 25 };
const nodeName = (abi: string) => (NODE_BY_ABI[abi] ? `Node ${NODE_BY_ABI[abi]}` : `ABI ${abi}`);
/** Node versions past their end of life: still allowed by engines while CI tests them, never recommended. */
const END_OF_LIFE: Record<number, string> = { 20: 'April 2026' };
/** ['115', '127', '137'] -> "Node 20, 22 or 24". */
const nodeList = (abis: string[]) => `Node ${abis.map((a) => NODE_BY_ABI[a]).join(', ').replace(/, (\d+)$/, ' or $1')}`;

/** Systems that ship a glibc version first, for the message. */
const GLIBC_SYSTEMS: Record<string, string> = { '2.38': 'Debian 13, Ubuntu 24.04, Fedora 39 or later, ' };

function olderThan(a: string, b: string): boolean {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) < (y[i] ?? 0);
  return false;
}

/** What this runtime lacks for uWebSockets.js, as a message saying what to use instead; null when it can load. */
export function runtimeProblem(f: RuntimeFacts): string | null {
  const lts = f.builds.filter((abi) => Number(abi) >= 115 && NODE_BY_ABI[abi] % 2 === 0);
  const supported = lts.filter((abi) => !END_OF_LIFE[NODE_BY_ABI[abi]]);
  if (!f.builds.includes(f.abi)) {
    return `Node ${f.nodeVersion} cannot run this server: uWebSockets.js (its HTTP and WebSocket server) has no build for ` +
      `${nodeName(f.abi)} on ${f.platform}-${f.arch}. Use ${supported.length ? nodeList(supported) : 'Node 22 or 24 on x64 or arm64'}.`;
  }
  if (f.platform !== 'linux') return null;
  if (f.glibc === null) {
    return `This Linux has no glibc (musl, as on Alpine?): the uWebSockets.js builds need glibc. ` +
      `Use a Debian or Ubuntu based system or image (the project's Dockerfile uses node:22-trixie-slim).`;
  }
  const needs = f.glibcNeeded(f.abi);
  if (!needs || !olderThan(f.glibc, needs)) return null;
  const fits = lts.filter((abi) => { const g = f.glibcNeeded(abi); return g !== null && !olderThan(f.glibc!, g); });
  const fitsSupported = fits.filter((abi) => !END_OF_LIFE[NODE_BY_ABI[abi]]);
  const stopgap = fitsSupported.length ? `, or run ${nodeList(fitsSupported)} on this one`
    : fits.length ? `; only until then, ${nodeList(fits)} runs on this one, but it is past its end of life and gets no security fixes` : '';
  return `Node ${f.nodeVersion} cannot run this server here: its uWebSockets.js build needs glibc ${needs} or later, ` +
    `and this system has glibc ${f.glibc}. Use a system with glibc ${needs}+ (${GLIBC_SYSTEMS[needs] ?? ''}` +
    `or the project's Docker image)${stopgap}.`;
}

/** A warning for a runtime that works but should not be used (a Node past its end of life); null otherwise. */
export function runtimeWarning(f: Pick<RuntimeFacts, 'nodeVersion'>): string | null {
  const major = Number(f.nodeVersion.split('.')[0]);
  const eol = END_OF_LIFE[major];
  return eol ? `Node ${f.nodeVersion} is past its end of life (${eol}) and gets no security fixes. ` +
    `Move to Node 22 LTS (or 24); on Linux they need glibc 2.38 (Debian 13, Ubuntu 24.04) or the project's Docker image.` : null;
}

/** The newest GLIBC_2.N a shared object asks for: the version names are plain text in its dynamic section. */
function glibcNeededBy(file: string): string | null {
  const bytes = readFileSync(file);
  let max: string | null = null;
  for (let at = bytes.indexOf('GLIBC_2.'); at >= 0; at = bytes.indexOf('GLIBC_2.', at + 8)) {
    let end = at + 8;
    while ((bytes[end] >= 0x30 && bytes[end] <= 0x39) || bytes[end] === 0x2e) end++;
    const version = bytes.toString('latin1', at + 6, end);
    if (!max || olderThan(max, version)) max = version;
  }
  return max;
}

export function currentRuntime(): RuntimeFacts {
  const { platform, arch } = process;
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
  const dir = dirname(createRequire(import.meta.url).resolve('uWebSockets.js'));
  const prefix = `uws_${platform}_${arch}_`;
  const builds = (existsSync(dir) ? readdirSync(dir) : [])
    .filter((name) => name.startsWith(prefix) && name.endsWith('.node'))
    .map((name) => name.slice(prefix.length, -'.node'.length));
  return {
    nodeVersion: process.versions.node, platform, arch, abi: process.versions.modules,
    glibc: platform === 'linux' ? header?.glibcVersionRuntime ?? null : null,
    builds,
    glibcNeeded: (abi) => (platform === 'linux' && builds.includes(abi) ? glibcNeededBy(join(dir, `${prefix}${abi}.node`)) : null),
  };
}
