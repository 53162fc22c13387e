// Lint rules (npm run lint; .ci/run). typescript-eslint's recommended rules, adapted to this codebase: every rule
// turned off or eased below says why in one line. The rules that need type information (no floating or misused
// promises, on src, actors and workers) run only with LINT_TYPES=1: they more than double the run (over 80 s of CPU
// against about 30 s), too slow for every CI run on two cores.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'bench/results/**', 'bench/.build/**', 'bench/.prof/**', 'test-results/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: { ...globals.node },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      '@typescript-eslint/ban-ts-comment': ['error', { 'ts-ignore': true, 'ts-nocheck': true, 'ts-expect-error': 'allow-with-description' }],
      // `cond ? a() : b()` as a statement is this codebase's style for two-way calls.
      '@typescript-eslint/no-unused-expressions': ['error', { allowTernary: true, allowShortCircuit: true }],
      // 580 uses, nine in ten in tests reading JSON frames; the widget's typed protocol (issue 37) is the real fix.
      '@typescript-eslint/no-explicit-any': 'off',
      // Flags the defensive first value before an if/else or try that always assigns (8 places, none a bug).
      'no-useless-assignment': 'off',
      // The control characters in our regexes are meant: ASCII ranges, ANSI colour codes in log output.
      'no-control-regex': 'off',
    },
  },
  {
    // Plain JS that runs in the test browser's page; `const h = this` keeps the harness inside nested callbacks.
    files: ['test/widget/*.js'],
    languageOptions: { globals: { ...globals.browser } },
    rules: { '@typescript-eslint/no-this-alias': 'off' },
  },
  process.env.LINT_TYPES !== '1' ? {} : {
    files: ['src/**/*.ts', 'actors/**/*.ts', 'workers/**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
    },
  },
  {
    // Server code logs through pino (docs/development.md); the CLI, the load test and scripts print for a person.
    files: ['src/**', 'actors/**', 'workers/**'],
    ignores: ['src/cli/**', 'src/loadtest/**'],
    rules: { 'no-console': 'error' },
  },
  {
    // Tests wait for a condition (test/helpers/until.ts: `until`), never a fixed time; a wait in which something must
    // NOT happen is `quietFor(ms, why)` from the same file. Code passed to page.evaluate/waitForFunction runs in the
    // browser and is left alone; the fakes in test/fakes simulate a provider's own delays (they are not test waits).
    files: ['test/**'],
    ignores: ['test/helpers/**', 'test/fakes/**', 'test/fixtures/**'],
    rules: {
      'no-restricted-syntax': ['error',
        {
          selector: ":not(CallExpression[callee.property.name=/^(evaluate|evaluateHandle|waitForFunction)$/] *) > NewExpression[callee.name='Promise'] CallExpression[callee.name='setTimeout'][arguments.0.type='Identifier']",
          message: 'A fixed sleep in a test: wait for the condition with `until(() => cond, { message })`, or for a time in which something must not happen with `quietFor(ms, why)` (test/helpers/until.ts).',
        },
        {
          selector: "VariableDeclarator[id.name=/^sleep$/i], FunctionDeclaration[id.name=/^sleep$/i]",
          message: 'A private sleep helper in a test: use `until(() => cond, { message })` or `quietFor(ms, why)` from test/helpers/until.ts.',
        },
        {
          selector: "ImportDeclaration[source.value=/^(node:)?timers\\/promises$/]",
          message: 'A timers/promises sleep in a test: use `until(() => cond, { message })` or `quietFor(ms, why)` from test/helpers/until.ts.',
        },
      ],
    },
  },
  {
    files: ['widget/**', 'admin/**'],
    languageOptions: { globals: { ...globals.browser } },
  },
);
