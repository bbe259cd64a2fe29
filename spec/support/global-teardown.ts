import { rm } from 'node:fs/promises';
import { BUILD_VARIABLE } from './run-build';

/** Jest's global tear-down: removes the run's build folder (`global-setup.ts`). */
export default async function globalTeardown(): Promise<void> {
  const dir = process.env[BUILD_VARIABLE];
  if (dir) await rm(dir, { recursive: true, force: true });
}
