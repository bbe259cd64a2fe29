import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The project's folder: the nearest one above this module holding `package.json`. The same
 * answer from the sources (`server/process/`) and from the bundle (`dist/server.js`), whose
 * depths differ.
 */
export function projectRoot(from: string = __dirname): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No package.json above ${from}.`);
  }
}
