import swagger from '@fastify/swagger';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { ErrorAnswer } from './error-answer';

/**
 * Options for Fastify's Ajv: the route schemas validate input, and their failures are answered in
 * the error contract (`validationAnswer`). Unknown fields are refused, not silently dropped;
 * `verbose` hands each failure the schema it broke, whose `x-error` names the answer.
 */
export const AJV_OPTIONS = { customOptions: { removeAdditional: false, verbose: true, allowUnionTypes: true, keywords: ['x-error'] } };

/** What a schema says to answer when a value breaks it: `{code, message}` (the message names the field). */
export interface SchemaError {
  readonly code: string;
  readonly message: string;
}

/** A schema annotated with the error its failures are answered with. */
export function failsWith<const T extends object>(schema: T, code: string, message: string): T & { 'x-error': SchemaError } {
  return { ...schema, 'x-error': { code, message } };
}

/** The error contract's body, as the OpenAPI document describes every error answer. */
export const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string' }, message: { type: 'string' } },
    },
  },
} as const;

/** Either way into the admin API (`admin/access.ts`). */
export const ADMIN_SECURITY: Array<Record<string, string[]>> = [{ adminToken: [] }, { adminSession: [] }];

/** Error answers of a route, by status, for its `response` schema. */
export function errorResponses(...statuses: number[]): Record<number, typeof ERROR_SCHEMA> {
  return Object.fromEntries(statuses.map((status) => [status, ERROR_SCHEMA]));
}

/**
 * Collects every route's schema into one OpenAPI 3 document (`app.swagger()`, served at
 * `/admin/openapi.json`). Registered before any route, so that it sees them all.
 */
export function installOpenApi(app: FastifyInstance): void {
  // On `app` itself (swagger is not encapsulated), so that its route hook sees every scope's routes.
  app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Waiting Room',
        description:
          "The waiting room's own routes: the page's calls, channel authorization, the error sink, the Pusher HTTP events API and the admin API. " +
          'Every other request goes to the origin (the gateway), and `/app/{key}` is the Pusher-protocol WebSocket. Every error is `{error: {code, message}}`.',
        version: '1.0.0',
      },
      components: {
        securitySchemes: {
          adminToken: {
            type: 'http',
            scheme: 'bearer',
            description:
              'ADMIN_TOKEN. Past 10 wrong tokens a minute from one address (sign-ins included), a wrong one is answered 429 after a second; the right one always passes.',
          },
          adminSession: {
            type: 'apiKey',
            in: 'cookie',
            name: 'waiting_room_admin',
            description: "The console's session; calls that change anything also send X-CSRF-Token.",
          },
        },
      },
    },
  });
}

interface AjvFailure {
  readonly keyword: string;
  readonly instancePath: string;
  readonly message?: string;
  readonly params: Record<string, unknown>;
  readonly parentSchema?: { readonly 'x-error'?: SchemaError; readonly properties?: Record<string, { readonly 'x-error'?: SchemaError }> };
}

/**
 * The answer to input that breaks a route's schema: 400, with the `x-error` of the schema broken
 * (or of the missing field), else `bad_<field>` and a message naming the field.
 */
export function validationAnswer(error: FastifyError): ErrorAnswer {
  const failure = error.validation?.[0] as AjvFailure | undefined;
  const where = error.validationContext ?? 'body';
  if (!failure) return { status: 400, code: 'bad_request', message: `The ${where} is not valid.` };
  const path = failure.instancePath.split('/').filter(Boolean);
  let declared = failure.parentSchema?.['x-error'];
  if (failure.keyword === 'required') {
    const missing = String(failure.params.missingProperty);
    path.push(missing);
    declared = failure.parentSchema?.properties?.[missing]?.['x-error'];
  }
  if (failure.keyword === 'additionalProperties') {
    const field = String(failure.params.additionalProperty);
    return { status: 400, code: declared?.code ?? 'bad_request', message: `The ${where} has a field this route does not take: "${field}".` };
  }
  if (declared) return { status: 400, ...declared };
  const field = path.join('.');
  const last = path.filter((segment) => !/^\d+$/.test(segment)).at(-1);
  return field === ''
    ? { status: 400, code: 'bad_request', message: `The ${where} ${failure.message ?? 'is not valid'}.` }
    : { status: 400, code: `bad_${last ?? 'request'}`, message: `"${field}" in the ${where} ${failure.message ?? 'is not valid'}.` };
}
