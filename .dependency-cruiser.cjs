/**
 * Dependency rules (npm run deps; .ci/run). The package boundaries of docs/development.md, the layer order
 * (docs/development.md, "Layers": a module imports only its own layer and those below), and no import cycle between
 * folders. scripts/deps.mjs runs dependency-cruiser with this file and then the folder cycle check
 * (scripts/import-graph.mjs: folder = src/<name>, files directly in src/ as "src", actors/<name>, workers).
 */

/** The server's layers, bottom first (docs/development.md, "Layers"). A new folder must be placed in one. */
const LAYERS = [
  ['the kernel (config, errors, clock, log, validation)', '^src/(config|kernel)/'],
  ['storage and safety (store, security)', '^src/(store|security)/'],
  ['metrics and the uWS adapter (src/http)', '^src/(metrics|http)/'],
  ['the context every service is handed (src/app: AppContext, the group port, the events bus, readiness)', '^src/app/'],
  ['providers and coordination (src/providers, src/scale, actors/runtime)', '^(src/(providers|scale)|actors/runtime)/'],
  ['the domain (auth, bots, records, tools, documents, knowledge and its workers, leads, faces, analytics, webhooks)', '^(src/(auth|bots|records|tools|documents|knowledge|leads|faces|analytics|events)|workers)/'],
  ['the engine (src/conversation, src/voice)', '^src/(conversation|voice)/'],
  ['the actors', '^actors/(conversation|voice|workspace)/'],
  ['services over the actors (team, visitors, retention, ops, the scale-out wiring in src/group)', '^src/(team|visitors|retention|ops|group)/'],
  ['transport (src/api routes, src/chat widget sockets)', '^src/(api|chat)/'],
  ['composition (src/main.ts, src/server.ts, src/compose.ts) and the other mains (src/cli, src/loadtest)', '^src/[^/]+\\.ts$|^src/(cli|loadtest)/'],
];
const layerRules = LAYERS.slice(0, -1).map(([name, path], i) => ({
  name: `layer-${i}-imports-nothing-above`, severity: 'error',
  comment: `Layer ${i}, ${name}, imports only its own layer and those below.`,
  from: { path },
  to: { path: LAYERS.slice(i + 1).map(([, p]) => p).join('|') },
}));

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
    ...layerRules,
    {
      name: 'every-server-folder-has-a-layer', severity: 'error',
      comment: 'Place a new folder in LAYERS (and in docs/development.md), so the layer rules cover it.',
      from: { path: '^(src|actors|workers)/', pathNot: `${LAYERS.map(([, p]) => p).join('|')}` },
      to: {},
    },
    {
      name: 'browser-bundles-stay-in-the-browser', severity: 'error',
      comment: 'widget/ and admin/ are browser bundles: they import nothing from the server, the actors or the workers (the wire types they share with the server are in protocol/).',
      from: { path: '^(widget|admin)/' },
      to: { path: '^(src|actors|workers)/' },
    },
    {
      name: 'protocol-imports-nothing', severity: 'error',
      comment: 'protocol/ holds the wire types the server and the browser bundles share: it imports nothing outside itself, so a browser bundle importing it gets no server code.',
      from: { path: '^protocol/' },
      to: { pathNot: '^protocol/' },
    },
    {
      name: 'protocol-is-imported-as-types', severity: 'error',
      comment: 'protocol/ is types only: import it with `import type` (or `export type ... from`), so no bundle or dist file needs it at run time.',
      from: {},
      to: { path: '^protocol/', dependencyTypesNot: ['type-only'] },
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
