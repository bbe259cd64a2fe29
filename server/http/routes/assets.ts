import path from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../errors';
import { errorResponses } from '../openapi';

/** What an asset is sent as, by extension; any other file in the folder is not served. */
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

/** What the build writes beside each asset (`build.mjs`), by the encoding it holds. */
const COMPRESSED = /\.(br|gz)$/;

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
 * Serves the built page assets from `dir` at `/assets/*` with @fastify/static: the Brotli or
 * gzip copy the build wrote beside each file when the browser accepts it (`Accept-Encoding`,
 * q-values included; `Vary: Accept-Encoding` on every answer), ETags and 304s, HEAD; hashed names
 * with a year-long immutable cache, the rest revalidated. Only the known types are served: the
 * waiting page template is not (the server fills it for each visitor), nor a compressed copy by
 * its own name, nor a source map without `publicSourceMaps`; there is no directory listing. The
 * name is the path the router routed (`request.url`, normalized once at the edge), never the raw
 * target, and it must name a file inside `dir`.
 */
export async function assetRoutes(app: FastifyInstance, options: AssetOptions): Promise<void> {
  const root = path.resolve(options.dir);
  const types: Record<string, string | undefined> = options.publicSourceMaps ? TYPES : { ...TYPES, '.map': undefined };
  const typeOf = (name: string) => types[path.extname(name.replace(COMPRESSED, '')).toLowerCase()];
  await app.register(fastifyStatic, {
    root,
    serve: false,
    preCompressed: true,
    index: false,
    dotfiles: 'ignore',
    // Ranges of a compressed copy are of no use to a page's scripts; the answer is the whole file.
    acceptRanges: false,
    cacheControl: false,
    // Checked again on the file chosen; a compressed copy is checked as the file it compresses.
    allowedPath: (name) => typeOf(name) !== undefined,
    setHeaders: (reply, file) => {
      reply.header('cache-control', HASHED.test(file.replace(COMPRESSED, '')) ? 'public, max-age=31536000, immutable' : 'no-cache');
    },
  });
  const schema = {
    summary: "The page's built files",
    description:
      'The Brotli or gzip copy built beside each file when Accept-Encoding takes it (Vary: Accept-Encoding). ' +
      'Content-hashed names are cached for a year; source maps only with PUBLIC_SOURCE_MAPS.',
    tags: ['waiting page'],
    params: { type: 'object', properties: { '*': { type: 'string' } } },
    response: { ...errorResponses(404) },
  };
  const nameOf = (params: unknown) => (params as { '*': string })['*'];
  // @fastify/static types a compressed copy by its own table (JavaScript as application/javascript).
  app.addHook('onSend', (request, reply, payload, done) => {
    if (reply.statusCode == 200 || reply.statusCode == 304) reply.header('content-type', typeOf(nameOf(request.params)));
    done(null, payload);
  });
  app.get('/assets/*', { schema }, (request, reply) => {
    const name = nameOf(request.params);
    const file = path.resolve(root, name);
    if (typeOf(name) === undefined || COMPRESSED.test(name) || !file.startsWith(root + path.sep)) {
      throw new HttpError(404, 'not_found', 'No such asset.');
    }
    return reply.sendFile(path.relative(root, file));
  });
  // The error handlers' 405 cannot tell this wildcard from the origin's catch-all: said here.
  app.route({
    method: ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    url: '/assets/*',
    schema: { hide: true },
    handler: (request) => {
      const at = request.url.split('?')[0];
      throw new HttpError(405, 'method_not_allowed', `${request.method} is not allowed at ${at}; use GET, HEAD.`, { allow: 'GET, HEAD' });
    },
  });
}
