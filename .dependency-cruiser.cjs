/**
 * Dependency rules (npm run deps; .ci/run). The package boundaries of docs/development.md, the layer order of the
 * design (docs/development.md, "Layers") as far as the code holds it today, and no new import cycle between
 * folders. scripts/deps.mjs runs dependency-cruiser with this file and then the folder check
 * (scripts/import-graph.mjs) against `knownFolderCycles` below.
 */
const KERNEL = '^src/(config|kernel)/';
const STORAGE = '^src/(store|security)/';
const CONTEXT = '^src/app/';
const PROJECT = '^(src|actors|workers|widget|admin)/';

/** One package, imported only from `allowed` (a path regex). */
const onlyFrom = (name, pkg, allowed, comment) => ({
  name, comment, severity: 'error',
  from: { pathNot: allowed },
  to: { path: `^node_modules/${pkg}/` },
});

module.exports = {
  forbidden: [
    onlyFrom('uws-only-in-http', 'uWebSockets\\.js', '^src/http/', 'Only src/http talks to uWebSockets.js (the transport).'),
    onlyFrom('sqlite-only-in-store', 'better-sqlite3', '^src/store/|^src/cli/data-dir\\.ts$',
      'Only src/store adapters open the database. Known exception: the CLI backup (src/cli/data-dir.ts) copies the file with SQLite\'s backup API.'),
    onlyFrom('mongodb-only-in-store', 'mongodb', '^src/store/', 'Only src/store adapters talk to MongoDB.'),
    onlyFrom('qdrant-only-in-store', '@qdrant/js-client-rest', '^src/store/', 'Only src/store adapters talk to Qdrant.'),
    onlyFrom('openai-only-in-providers', 'openai', '^src/providers/', 'Only src/providers adapters use the OpenAI SDK.'),
    onlyFrom('genai-only-in-providers', '@google/genai', '^src/providers/', 'Only src/providers adapters use the Gemini SDK.'),
    onlyFrom('piscina-only-in-pool', 'piscina', '^workers/pool\\.ts$', 'workers/pool.ts is the one module that owns the worker pool.'),
    {
      name: 'kernel-is-the-bottom', severity: 'error',
      comment: 'Layer 1 (config, errors, clock, log, validation) imports no other part of the server.',
      from: { path: KERNEL },
      to: { path: PROJECT, pathNot: KERNEL },
    },
    {
      name: 'storage-and-safety-below-the-domain', severity: 'error',
      comment: 'Layer 2 (src/store, src/security) imports only the kernel and itself.',
      from: { path: STORAGE },
      to: { path: PROJECT, pathNot: `${KERNEL}|${STORAGE}` },
    },
    {
      name: 'context-below-the-services', severity: 'error',
      comment: 'src/app (AppContext, the group port, the events bus) is what every service is handed: it imports only layers 1 and 2.',
      from: { path: CONTEXT },
      to: { path: PROJECT, pathNot: `${KERNEL}|${STORAGE}|${CONTEXT}` },
    },
    {
      name: 'browser-bundles-stay-in-the-browser', severity: 'error',
      comment: 'widget/ and admin/ are browser bundles: they import nothing from the server, the actors or the workers.',
      from: { path: '^(widget|admin)/' },
      to: { path: '^(src|actors|workers)/' },
    },
    {
      name: 'composition-root-is-imported-by-nobody', severity: 'error',
      comment: 'src/main.ts builds the server; nothing imports it (the CLI and the load test have their own mains).',
      from: {},
      to: { path: '^src/main\\.ts$' },
    },
    {
      name: 'no-unresolvable-import', severity: 'error',
      comment: 'An import that does not resolve is a typo or a missing dependency.',
      from: {},
      to: { couldNotResolve: true, pathNot: '^node:' },
    },
  ],
  options: {
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'], exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'] },
  },
};

/**
 * Folder import edges that today close a cycle between folders (folder: src/<name>, files directly in src/ as
 * "src", actors/<name>, workers). scripts/import-graph.mjs fails on any other edge inside a cycle, so a new cycle
 * fails the build; an edge listed here that no longer closes a cycle must be removed from the list (the check
 * says so), so the list only shrinks. Issue 37 is the plan to empty it. `node scripts/deps.mjs --write-known`
 * prints the current list. Not enumerable: dependency-cruiser refuses keys of its own schema does not know.
 */
Object.defineProperty(module.exports, 'knownFolderCycles', { enumerable: false, value: {
  'src/knowledge': ['workers'],
  'workers': ['src/knowledge'],
} });
