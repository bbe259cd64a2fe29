import type { FastifyInstance, FastifyRequest } from 'fastify';
import { performance } from 'node:perf_hooks';
import type { OriginSignals } from '../domain/admission/signals';

declare module 'fastify' {
  interface FastifyRequest {
    /** The room's counts this request's answer goes to, when it is an admitted request of an adaptive room. */
    originSignals: OriginSignals | null;
    /** When it was handed to the origin (`performance.now()`). */
    originSentAt: number;
  }
}

/**
 * The two fields on every request of the gateway's scope, declared up front so that requests
 * keep one shape whether they are watched or not.
 */
export function declareOriginWatch(app: FastifyInstance): void {
  app.decorateRequest('originSignals', null);
  app.decorateRequest('originSentAt', 0);
}

/** Marks an admitted request as it goes to the origin: two field writes, nothing allocated. */
export function watchOrigin(request: FastifyRequest, signals: OriginSignals | undefined): void {
  if (signals === undefined) return;
  request.originSignals = signals;
  request.originSentAt = performance.now();
  signals.forwarded();
}

/** The origin answered a watched request (its headers came). */
export function originAnswered(request: FastifyRequest, status: number): void {
  const signals = request.originSignals;
  if (signals !== null) signals.answered(performance.now() - request.originSentAt, status);
}

/** A watched request failed before any answer: too slow (`timeout`), or the origin out of reach. */
export function originFailed(request: FastifyRequest, timeout: boolean): void {
  const signals = request.originSignals;
  if (signals !== null) signals.failed(timeout);
}
