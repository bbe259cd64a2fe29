/** One project per part, so each runs in the environment it ships to. */
const ts = { '^.+\\.tsx?$': ['ts-jest', { isolatedModules: true }] };
/**
 * The workspace package by name, from its sources (as tsconfig.json's `paths` does for tsc, tsx
 * and esbuild), and its ES-module imports' `.js` endings to the TypeScript files they name.
 */
const moduleNameMapper = {
  '^@waiting-room/streams$': '<rootDir>/streams/index.ts',
  '^@waiting-room/streams/contract$': '<rootDir>/streams/contract/index.ts',
  '^(\\.{1,2}/.*)\\.js$': '$1',
};
const project = (name, testEnvironment, extra = {}) => ({
  displayName: name,
  testEnvironment,
  transform: ts,
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
    project('e2e', 'node', { globalSetup: '<rootDir>/spec/e2e/global-setup.ts' }),
  ],
};
