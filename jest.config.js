const { availableParallelism } = require('node:os');

/**
 * Dependencies published as ES modules only, which Jest 29's CommonJS runtime cannot require
 * (Node itself can): compiled to CommonJS for the tests. content-disposition comes with
 * @fastify/static; github-slugger writes anchors as GitHub does, for the docs' link check; jose signs and checks
 * the connector's pass.
 */
const ESM_ONLY = ['content-disposition', 'github-slugger', 'jose'];

// Each file compiled alone, without type checking (tsconfig.json's `isolatedModules`): the type
// check is `npm run typecheck`'s.
const ts = {
  '^.+\\.tsx?$': 'ts-jest',
  [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: ['ts-jest', { tsconfig: { allowJs: true, isolatedModules: true } }],
};
/**
 * The workspace package by name, from its sources (as tsconfig.json's `paths` does for tsc, tsx
 * and esbuild), and its ES-module imports' `.js` endings to the TypeScript files they name.
 */
const moduleNameMapper = {
  '^@waiting-room/streams$': '<rootDir>/streams/index.ts',
  '^@waiting-room/streams/contract$': '<rootDir>/streams/contract/index.ts',
  '^@waiting-room/connector$': '<rootDir>/connector/index.ts',
  '^@waiting-room/connector/(.*)$': '<rootDir>/connector/$1.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};

/** Every test: a `*.spec.ts` or `*.spec.tsx` file anywhere under spec/. */
const SPEC = '/spec/.+\\.spec\\.tsx?$';

/**
 * The system tier, by path: the tests that drive whole programs beside our own. Chromium and the
 * servers and sites it visits (spec/e2e/), Redis Cluster and Sentinel with their failovers and
 * the chaos suite, several server instances on one Redis (scale-out), the package packed and installed, a container's build, workerd. Every other
 * spec file is in the fast tier: the two tiers are one pattern and its complement, so a new file
 * is always in exactly one (spec/tiers.spec.ts checks it against Jest's own list). A system test
 * drives whole programs, so the system tier gives its tests 30 s rather than Jest's 5 s
 * (spec/support/system-timeout.js).
 */
const SYSTEM = ['/spec/e2e/.+\\.spec\\.tsx?$', '/spec/(.+/)?[^/]*(cluster|sentinel|chaos|failover|scale-out|package|container|worker)[^/]*\\.spec\\.tsx?$'];

/** One project per tier; each file runs in the environment its part ships to (spec/support/part-environment.js). */
const tier = (name, extra) => ({
  displayName: name,
  testEnvironment: '<rootDir>/spec/support/part-environment.js',
  transform: ts,
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper,
  ...extra,
});

module.exports = {
  // The page and the server, built once for the whole run into a folder of its own (WAITING_ROOM_BUILD),
  // or taken as they are from the folder WAITING_ROOM_BUILD names before the run (.ci/run).
  globalSetup: '<rootDir>/spec/support/global-setup.ts',
  globalTeardown: '<rootDir>/spec/support/global-teardown.ts',
  reporters: ['default', '<rootDir>/spec/support/file-times-reporter.js'],
  testSequencer: '<rootDir>/spec/support/longest-first.js',
  // Half again as many workers as cores, not Jest's default of one fewer (on two cores, one:
  // every file in turn). Most files wait on sockets, processes and timers as much as they
  // compute, so a third file keeps the cores busy while two wait (on two cores the fast tier
  // took 104 s with three, 116 s with two); `npx jest <file> -i` still runs one file alone.
  maxWorkers: Math.ceil(availableParallelism() * 1.5),
  projects: [
    tier('fast', { testRegex: SPEC, testPathIgnorePatterns: ['/node_modules/', ...SYSTEM] }),
    tier('system', { testRegex: SYSTEM, setupFilesAfterEnv: ['<rootDir>/spec/support/system-timeout.js'] }),
  ],
};
