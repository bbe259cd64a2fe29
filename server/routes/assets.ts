import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../errors';
import { errorResponses } from '../openapi';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/** A content hash in the name (`main-3FJ2K7QX.js`): the file never changes, so it may be cached for good. */
const HASHED = /[-.][A-Za-z0-9_]{8,}\.[a-z0-9]+$/;

export interface AssetOptions {
  readonly dir: string;
  /**
   * Source maps are built for error reports, not needed to run the page. The code is open, so
   * they reveal nothing secret, but served by default they would also show a site's own build
   * paths and cost bandwidth to every curious visitor: an operator turns them on.
   */
  readonly publicSourceMaps: boolean;
}

/**
 * Serves the built page assets from `dir` at `/assets/*`: hashed names with a year-long
 * immutable cache, the rest revalidated. The waiting page template is not served as is.
 */
export async function assetRoutes(app: FastifyInstance, options: AssetOptions): Promise<void> {
  const root = path.resolve(options.dir);
  const types: Record<string, string | undefined> = options.publicSourceMaps ? TYPES : { ...TYPES, '.map': undefined };
  const schema = {
    summary: 'The page\'s built files',
    description: 'Content-hashed names are cached for a year; source maps only with PUBLIC_SOURCE_MAPS.',
    tags: ['waiting page'],
    params: { type: 'object', properties: { '*': { type: 'string' } } },
    response: { ...errorResponses(404) },
  };
  app.get('/assets/*', { schema }, async (request, reply) => {
    const name = (request.params as { '*': string })['*'];
    const type = types[path.extname(name).toLowerCase()];
    const file = path.resolve(root, name);
    if (type === undefined || !file.startsWith(root + path.sep)) {
      throw new HttpError(404, 'not_found', 'No such asset.');
    }
    const info = await stat(file).catch(() => undefined);
    if (!info?.isFile()) throw new HttpError(404, 'not_found', 'No such asset.');
    return reply
      .type(type)
      .header('content-length', info.size)
      .header('cache-control', HASHED.test(name) ? 'public, max-age=31536000, immutable' : 'no-cache')
      .header('last-modified', info.mtime.toUTCString())
      .send(createReadStream(file));
  });
}
