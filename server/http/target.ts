import type { IncomingMessage } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { HttpError } from './errors';
import { normalizeTarget, type NormalizedTarget, type RefusedTarget, type TargetResult } from '../domain/request-target';

/** Each request's target, parsed once, before routing. */
const parsed = new WeakMap<IncomingMessage, TargetResult>();

/**
 * Where a refused target is routed: no route owns it, and the edge's first `onRequest` hook
 * answers 400 before anything else sees the request (`refuseBadTarget`). Should that hook be
 * missing, the request still meets nothing but a 404.
 */
export const REFUSED_TARGET_PATH = '/.well-known/waiting-room/refused-request-target';

/**
 * Fastify's `rewriteUrl`: parses the raw target once and hands the router its normalized
 * form, which `request.url` then is for every hook and route (the raw one stays on
 * `request.originalUrl`, for logs only).
 */
export function rewriteTarget(req: IncomingMessage): string {
  const result = normalizeTarget(req.url ?? '');
  parsed.set(req, result);
  return result.ok ? result.target : REFUSED_TARGET_PATH;
}

function refusal(result: RefusedTarget): HttpError {
  return new HttpError(400, 'bad_request_target', `The request target is refused: ${result.reason}.`);
}

/** Throws the 400 for a request whose target `rewriteTarget` refused. */
export function refuseBadTarget(request: FastifyRequest): void {
  const result = parsed.get(request.raw);
  if (result && !result.ok) {
    // request.url is REFUSED_TARGET_PATH by now: the log says what was sent.
    request.log.debug({ target: request.originalUrl, reason: result.reason }, 'request target refused');
    throw refusal(result);
  }
}

/** The request's normalized target: the one the router routed. */
export function requestTarget(request: FastifyRequest): NormalizedTarget {
  // A request always went through rewriteTarget; parsing request.url again would give the same.
  const result = parsed.get(request.raw) ?? normalizeTarget(request.url);
  if (!result.ok) throw refusal(result);
  return result;
}
