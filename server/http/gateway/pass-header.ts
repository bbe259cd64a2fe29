import type { FastifyRequest } from 'fastify';

/**
 * The header the origin finds an admitted request's signed pass in (PASS_SECRET set): the site
 * can check who let the visitor in, and until when, without asking the waiting room. A visitor's
 * own is never passed on (`headers.ts`).
 */
export const PASS_HEADER = 'waiting-room-pass';

const passes = new WeakMap<FastifyRequest, string>();

/** Gives `request` its pass, for the origin. */
export function setPass(request: FastifyRequest, pass: string): void {
  passes.set(request, pass);
}

/** The pass the gate gave `request`, if any. */
export function passOf(request: FastifyRequest): string | undefined {
  return passes.get(request);
}
