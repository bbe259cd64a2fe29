import { rm } from 'node:fs/promises';
import { OWN_BUILD_VARIABLE } from './run-build';

/** Jest's global tear-down: removes the build folder the run's global set-up made (`global-setup.ts`), not one given to it. */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env[OWN_BUILD_VARIABLE];
  if (dir) await rm(dir, { recursive: true, force: true });
}
