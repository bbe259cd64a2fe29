/**
 * Dependencies published as ES modules only, which Jest 29's CommonJS runtime cannot require
 * (Node itself can): compiled to CommonJS for the tests. content-disposition comes with
 * @fastify/static; github-slugger writes anchors as GitHub does, for the docs' link check; jose signs and checks
 * the connector's pass.
 */
const ESM_ONLY = ['content-disposition', 'github-slugger', 'jose'];

/** One project per part, so each runs in the environment it ships to. */
const ts = {
  '^.+\\.tsx?$': ['ts-jest', { isolatedModules: true }],
  [`/node_modules/(${ESM_ONLY.join('|')})/.+\\.js$`]: ['ts-jest', { isolatedModules: true, tsconfig: { allowJs: true } }],
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
const project = (name, testEnvironment, extra = {}) => ({
  displayName: name,
  testEnvironment,
  transform: ts,
  transformIgnorePatterns: [`/node_modules/(?!(${ESM_ONLY.join('|')})/)`],
  moduleNameMapper,
  testMatch: [`<rootDir>/spec/${name}/**/*.spec.ts?(x)`],
  ...extra,
});

module.exports = {
  projects: [
    project('streams', 'node'),
    project('package', 'node'),
    project('page', 'jsdom'),
    project('server', 'node'),
    project('demo', 'node'),
    project('elements', 'jsdom'),
    project('e2e', 'node', { globalSetup: '<rootDir>/spec/e2e/global-setup.ts' }),
    project('docs', 'node'),
    project('connector', 'node'),
    project('conformance', 'node'),
  ],
};
