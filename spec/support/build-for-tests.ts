import { buildForTests } from './global-setup';

/**
 * `node --import tsx spec/support/build-for-tests.ts <folder>`: the global set-up's build of the
 * page and the server, into an empty folder that test runs then take as WAITING_ROOM_BUILD (as
 * `.ci/run` does, once for its four runs).
 */
const [dir] = process.argv.slice(2);
if (!dir) throw new Error('Usage: node --import tsx spec/support/build-for-tests.ts <empty folder>');
void buildForTests(dir);
