import type { FetchLike } from './http';

/**
 * queue_request's path (the contract's `ROUTES.queue_request`) and the server's route for a
 * priority code beside it (`QUEUE_CODE_ROUTE` in server/http/routes/codes.ts). Written here, not
 * imported: the controls' file bundles nothing the page does.
 */
const QUEUE_REQUEST = /\/queue\/request(?=\?|$)/;
const QUEUE_CODE = '/queue/code';

/** What entering a code came to, as the page says it. */
export type CodeAnswer = { readonly kind: 'moved'; readonly position: number } | { readonly kind: 'wrong' | 'limited' | 'failed' };

/**
 * Sends a typed code for the visitor's place, with the session's CSRF token, to the code route of
 * the room the page's queue_request names (its `?room=` kept). Never rejects: a network failure or
 * an answer it cannot read is `failed`.
 */
export function createSendCode(fetch: FetchLike, queueRequestRoute: string, csrfToken: string): (code: string) => Promise<CodeAnswer> {
  const url = queueRequestRoute.replace(QUEUE_REQUEST, QUEUE_CODE);
  return async (code) => {
    try {
      const response = await fetch(url, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json', 'X-CSRF-TOKEN': csrfToken },
        body: JSON.stringify({ code }),
      });
      if (response.status == 404 || response.status == 400) return { kind: 'wrong' };
      if (response.status == 429) return { kind: 'limited' };
      const body = (await response.json()) as { position?: unknown };
      return response.ok && typeof body.position == 'number' ? { kind: 'moved', position: body.position } : { kind: 'failed' };
    } catch {
      return { kind: 'failed' };
    }
  };
}
