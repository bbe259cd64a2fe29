import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyTypeProvider,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';

/**
 * Types a route's input (body, query, params, headers) from its JSON schema, which Fastify has
 * checked before the handler runs. The answers stay untyped: their schemas serialize and document
 * them, and typing them would ask the domain's types for index signatures they do not have.
 */
export interface SchemaInput extends FastifyTypeProvider {
  validator: this['schema'] extends JSONSchema ? FromSchema<this['schema']> : unknown;
  serializer: unknown;
}

/** A Fastify scope whose handlers get their input typed from the route's schema: no cast restates it. */
export type SchemaTypedApp = FastifyInstance<RawServerDefault, RawRequestDefaultExpression, RawReplyDefaultExpression, FastifyBaseLogger, SchemaInput>;
