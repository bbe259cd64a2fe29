/** One project per part, so each runs in the environment it ships to. */
const ts = { '^.+\\.tsx?$': ['ts-jest', { isolatedModules: true }] };
const project = (name, testEnvironment, extra = {}) => ({
  displayName: name,
  testEnvironment,
  transform: ts,
  testMatch: [`<rootDir>/spec/${name}/**/*.spec.ts?(x)`],
  ...extra,
});

module.exports = {
  projects: [
    project('streams', 'node'),
    project('page', 'jsdom'),
    project('server', 'node'),
    project('demo', 'node'),
    project('e2e', 'node', { globalSetup: '<rootDir>/spec/e2e/global-setup.ts' }),
  ],
};
