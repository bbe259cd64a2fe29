import AjvCompiler from '@fastify/ajv-compiler';
import SerializerSelector from '@fastify/fast-json-stringify-compiler';
import type { FastifyServerOptions } from 'fastify';

type CompilersFactory = Required<NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>>;

/**
 * A factory as Fastify calls it: with the shared schemas and the options, for a compiler it then
 * calls with each route's schema and where it applies (`{schema, method, url, …}`; the Ajv
 * compiler's own types say it is called with the schema alone, which is not what Fastify does).
 */
type Factory = (externalSchemas: unknown, options: unknown) => (route: { readonly schema?: unknown }) => unknown;

/**
 * Fastify's own schema compilers (Ajv for what a route accepts, fast-json-stringify for what it
 * answers), each schema compiled once per process rather than once per app. Fastify gives every
 * instance compilers of its own, so each app built compiles every route's schemas again: once in
 * a server's life, but the tests build an app for most files (hundreds of times a run), where
 * that compiling was about a fifth of the CPU of the fast tier.
 *
 * A compiled function depends only on its schema and on the compiler's options and shared
 * schemas, so it is kept under all three, written as JSON (a schema here is JSON: no function
 * in it). Validators are called and their `errors` read in one synchronous step, so one is
 * shared by apps as it is by requests.
 */
export const compilersFactory = {
  buildValidator: onceEach(AjvCompiler() as unknown as Factory, (externalSchemas, options) => {
    const { customOptions, mode } = (options ?? {}) as { customOptions?: unknown; mode?: unknown };
    return [externalSchemas, customOptions, mode];
  }),
  buildSerializer: onceEach(SerializerSelector() as unknown as Factory, (externalSchemas, options) => [externalSchemas, options]),
} as unknown as CompilersFactory;

/**
 * `factory`'s compilers, each compiling a schema once for all those built with the same `settings`
 * (their options and shared schemas), the compiled functions kept in one map for the process.
 */
function onceEach(factory: Factory, settings: (externalSchemas: unknown, options: unknown) => unknown[]): Factory {
  const compiled = new Map<string, unknown>();
  return (externalSchemas, options) => {
    const compile = factory(externalSchemas, options);
    const settingsKey = JSON.stringify(settings(externalSchemas, options));
    return (route) => {
      const key = `${settingsKey}\n${JSON.stringify(route.schema)}`;
      let done = compiled.get(key);
      if (done === undefined) {
        done = compile(route);
        compiled.set(key, done);
      }
      return done;
    };
  };
}
