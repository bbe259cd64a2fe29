/**
 * `npm run lint`. TypeScript is linted with its types (typescript-eslint's type-checked rules
 * catch a promise nobody awaits, which plain syntax cannot); React code also by the rules of
 * hooks. Formatting is Prettier's alone (`npm run format:check`), so no rule here is about layout.
 */
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    // Built, generated or outside projects: not the repository's sources.
    ignores: [
      'node_modules/',
      'dist/',
      'public/assets/',
      'streams/dist/',
      'connector/dist/',
      'connector/examples/next/.next/',
      'connector/examples/next/next-env.d.ts',
      'bench/results/',
      'spec/package/consumer/',
      'coverage/',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // Async functions here implement async interfaces (the store, Fastify's handlers and
      // hooks): `async` is what turns a throw into a rejection, with or without an await.
      '@typescript-eslint/require-await': 'off',
      // A list in a message reads as its default join (`one of GET,POST,…`); the page ships the
      // config validator within a tight budget, where `.join()` costs bytes for the same text.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowArray: true }],
      '@typescript-eslint/only-throw-error': [
        'error',
        {
          // A refused request target is control flow inside the parser (caught by
          // normalizeTarget), thrown for hostile input: no stack is captured for it.
          allow: [{ from: 'file', name: 'Refusal', path: 'server/domain/request-target.ts' }],
        },
      ],
      // ws hands every message as one Buffer (its default binaryType, 'nodebuffer', which no
      // socket here changes); its type also names the other binaryTypes' ArrayBuffer and Buffer[].
      '@typescript-eslint/no-base-to-string': ['error', { ignoredTypeNames: ['Error', 'RegExp', 'URL', 'URLSearchParams', 'RawData'] }],
      // A closure may read a variable before its one assignment (a callback wired up before the
      // server knows its port): declared `const` there, it would be read in its dead zone.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      // The Redis client and the pusher SDK are loaded when a Redis or an outside Pusher server is
      // configured, synchronously where the client is made: the default server starts without them.
      '@typescript-eslint/no-require-imports': ['error', { allow: ['^ioredis$', '^pusher$'] }],
      // `_name`: a parameter or element a signature needs but the code does not read.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    // A route's input is typed from its JSON schema (server/http/type-provider.ts), which Fastify
    // checks before the handler runs: a cast would restate the schema, and could drift from it.
    files: ['server/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "TSAsExpression > MemberExpression.expression[object.name='request'][property.name=/^(body|query|params|headers)$/]",
          message: "Type the route's input from its schema (SchemaTypedApp), not with a cast.",
        },
      ],
    },
  },
  {
    // Tests read untyped JSON (answers, messages, reports, malformed configs made on purpose)
    // and check it with expect(): the assertion is the type check, and a cast before each one
    // would only repeat it. `expect(object.method)` reads a mock; it never calls it unbound.
    files: ['spec/**/*.{ts,tsx}'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Benchmark results read back from a file, this run's and an older run's: any part may be
    // missing or shaped by an older bench, so each read is guarded (`?.`) and its number checked
    // (`finite()`) where it is used, as the tests check untyped JSON with expect().
    files: ['bench/compare.ts', 'bench/performance-figures.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['src/**/*.tsx', 'spec/page/**/*.tsx'],
    extends: [reactHooks.configs.flat.recommended],
  },
  {
    // The Next.js example imports the connector as a site does, by its built package, which a
    // fresh checkout does not have until a build: its types are checked by `next build`, which
    // its end-to-end test runs, so here it is linted without them.
    files: ['connector/examples/**/*.{ts,tsx}'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
