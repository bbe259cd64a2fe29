import { from, Observable } from 'rxjs';
import { readQueueInfo, realtimeSources, type PusherLike, type QueueSources } from '@waiting-room/streams';
import type { AltchaChallenge } from '@waiting-room/streams/contract';
import type { HeldAnswer } from './held-answer';

/** `fetch`, or anything that answers a Request as it does (a test's, with a cookie jar). */
export type Fetch = (request: Request) => Promise<Response>;

/** One HTTP call as a cold observable: fetches on subscription, aborted on unsubscription. */
const call = <T>(fetch: Fetch, url: string, init: RequestInit, read: (response: Response) => Promise<T>): Observable<T> =>
  new Observable<T>((subscriber) => {
    const abort = new AbortController();
    fetch(new Request(url, { ...init, signal: abort.signal }))
      .then(read)
      .then(
        (value) => {
          subscriber.next(value);
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
    return () => abort.abort();
  });

/** Solves the bot check's challenge: the payload queue_request sends as `altcha` (bot-check/solve.ts). */
export type SolveAltcha = (challenge: AltchaChallenge) => Promise<string>;

/**
 * The stream core's sources for one held answer, over one realtime client and `fetch`: the
 * waiting page's, event for event and call for call (the visitor's channel, public or private,
 * joined on each 'connected'; `RequestUnqueud` on it; `QueueMoved` on the line's channel; queue_info
 * and queue_request on the config's routes, on the gateway's origin, with the session cookie;
 * the realtime part is the package's own adapter, `realtimeSources`).
 * With a bot check (the config's `altcha`), the challenge is solved at once by `solveAltcha`, and
 * queue_request carries the solution, as the page's does.
 */
export function queueSources(client: PusherLike, { config, origin }: HeldAnswer, fetch: Fetch, solveAltcha?: SolveAltcha): QueueSources {
  const { queue, userId, csrfToken, routes } = config;
  // Sought at once; the promise keeps it for every queue_request, and a failure is reported when
  // the core asks for it (a challenge no solver is given fails there too).
  const solution = config.altcha && (solveAltcha ? solveAltcha(config.altcha) : Promise.reject(new Error('The bot check has no solver')));
  solution?.catch(() => undefined);
  const infoUrl = origin + routes.queue_info.replace('{uuid}', encodeURIComponent(queue.uuid));
  const json = { Accept: 'application/json' };

  return {
    ...realtimeSources(client, config),
    queueInfo: () => call(fetch, infoUrl, { cache: 'no-store', credentials: 'same-origin', headers: json }, readQueueInfo),
    queueRequest: (altcha?: string) =>
      call(
        fetch,
        origin + routes.queue_request,
        {
          method: 'POST',
          credentials: 'same-origin',
          headers: { ...json, 'Content-Type': 'application/json' },
          // JSON leaves an undefined `altcha` out.
          body: JSON.stringify({ _token: csrfToken, user_id: userId, uuid: queue.uuid, altcha }),
        },
        async () => undefined,
      ),
    ...(solution && { altcha$: from(solution) }),
  };
}
