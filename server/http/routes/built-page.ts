import { readFile } from 'node:fs/promises';
import { HttpError } from '../errors';

/**
 * A page `build.mjs` writes beside the waiting page (the console, the verify page): read once and
 * kept; while it is missing, each call fails with a 503 `code` saying to build it (and reads again,
 * so that a build made meanwhile is found).
 */
export function builtPage(file: string, code: string, what: string): () => Promise<string> {
  let page: Promise<string> | undefined;
  return () => {
    page ??= readFile(file, 'utf8').catch((error: unknown) => {
      page = undefined;
      throw error;
    });
    return page.catch(() => {
      throw new HttpError(503, code, `${what} is not built: run \`node build.mjs\`.`);
    });
  };
}
