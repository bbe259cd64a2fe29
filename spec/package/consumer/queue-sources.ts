import Pusher from 'pusher-js';
import { defer, from } from 'rxjs';
import { pusherOptions, readQueueInfo, realtimeSources, type QueueSources } from '@waiting-room/streams';
import type { AltchaChallenge, PageConfig } from '@waiting-room/streams/contract';

/** Solves the config's bot check: the payload queue_request sends as `altcha` (see "The bot check"). */
export type SolveAltcha = (challenge: AltchaChallenge) => Promise<string>;

/**
 * Every source `createQueue$` needs, for one checked page config: the realtime ones from the
 * package's pusher-js adapter, queue_info and queue_request over `fetch`, and the bot check's
 * solution when the config has a challenge. `origin` is '' on the waiting room's own origin, else
 * its origin (the config's paths are on it). Disconnect `pusher` once the status stream completes.
 */
export function queueSources(config: PageConfig, solve: SolveAltcha, origin = ''): { sources: QueueSources; pusher: Pusher } {
  const { queue, userId, csrfToken, routes } = config;
  const pusher = new Pusher(config.realtime.key, pusherOptions(config, origin));
  const call = (path: string, init: RequestInit) => fetch(origin + path, { ...init, credentials: 'include', cache: 'no-store' });
  // Sought at once, while the page connects; a promise keeps its value for every queue_request.
  const solution = config.altcha ? solve(config.altcha) : null;
  solution?.catch(() => undefined); // told through onSourceError when the core asks for it
  const sources: QueueSources = {
    ...realtimeSources(pusher, config),
    // 202 (pending its bot check), 404 unknown_uuid (the place is lost) and failed polls, told apart.
    queueInfo: () =>
      defer(async () =>
        readQueueInfo(await call(routes.queue_info.replace('{uuid}', encodeURIComponent(queue.uuid)), { headers: { Accept: 'application/json' } })),
      ),
    queueRequest: (altcha?: string) =>
      defer(() =>
        call(routes.queue_request, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
          // JSON leaves an undefined `altcha` out: without a bot check, the body is the spec's.
          body: JSON.stringify({ _token: csrfToken, user_id: userId, uuid: queue.uuid, altcha }),
        }),
      ),
    ...(solution && { altcha$: from(solution) }),
  };
  return { sources, pusher };
}
