import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

/**
 * The variable the global set-up (`spec/support/global-setup.ts`) names the run's build folder
 * by. The folder is laid out as the repository is after `node build.mjs` and `node
 * build-server.mjs` (`public/assets/`, `dist/server.js`), with the repository's package.json and
 * a link to its node_modules, so that the built server finds its root, its Node flags and its
 * dependencies there as it does in the repository.
 */
export const BUILD_VARIABLE = 'WAITING_ROOM_BUILD';

/** The build folder the run's global set-up made itself, which its tear-down removes. */
export const OWN_BUILD_VARIABLE = 'WAITING_ROOM_OWN_BUILD';

/** Whether this process runs inside a jest run, whose global set-up built the page and the server. */
export const inTestRun = (): boolean => Boolean(process.env[BUILD_VARIABLE]);

/** This run's build folder; outside a jest run (a benchmark), the repository itself. */
export const runBuildDir = (): string => process.env[BUILD_VARIABLE] || ROOT;

/** Where the waiting page and its assets are (`node build.mjs`'s public/assets). */
export const builtAssetsDir = (): string => path.join(runBuildDir(), 'public', 'assets');

/** The server as `build-server.mjs` builds it (`dist/server.js`). */
export const builtServerScript = (): string => path.join(runBuildDir(), 'dist', 'server.js');
