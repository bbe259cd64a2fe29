import { createConnector, type ConnectorAnswer, type ConnectorOptions, type ConnectorRequest } from './connector.js';
import type { Pass } from './pass.js';

/** The connector for runtimes with fetch's Request and Response: Next.js, Hono, Workers, Deno, Bun. */
export interface WebConnector {
  /** A Response to answer `request` with (a redirect, a held API client's answer), or undefined to go on. */
  handle(request: Request): Promise<Response | undefined>;
  /** The request's valid pass, given for this browser. */
  verifyPass(request: Request): Promise<Pass | undefined>;
  /** Ends the request's admission at the waiting room; set `cookies` on the answer to take the pass off the browser. */
  revoke(request: Request): Promise<{ readonly revoked: boolean; readonly cookies: readonly string[] }>;
}

export function createWebConnector(options: ConnectorOptions): WebConnector {
  // The runtimes with fetch's Request are mostly edge isolates, where a request's I/O ends with it.
  const connector = createConnector({ readsPerRequest: true, ...options });
  return {
    async handle(request) {
      const decision = await connector.decide(fromFetch(request));
      return decision.kind === 'answer' ? toResponse(decision.answer) : undefined;
    },
    verifyPass: (request) => connector.passOf(fromFetch(request)),
    revoke: (request) => connector.revoke(fromFetch(request)),
  };
}

/**
 * The request as the runtime routes it: a fetch Request carries only its URL, so the target is
 * that URL's path and query, as the runtime parsed them.
 */
export function fromFetch(request: Request): ConnectorRequest {
  return { method: request.method, url: request.url, header: (name) => request.headers.get(name), hasBody: request.body !== null };
}

/** The answer as a fetch Response. */
export function toResponse(answer: ConnectorAnswer): Response {
  const headers = new Headers(answer.headers);
  for (const value of answer.cookies) headers.append('set-cookie', value);
  return new Response(answer.body ?? null, { status: answer.status, headers });
}
