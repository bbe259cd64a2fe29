import { filter, finalize, firstValueFrom } from 'rxjs';
import { createQueue$ } from '@waiting-room/streams';
import { parsePageConfig, type PageConfigJson } from '@waiting-room/streams/contract';
import { queueSources, type SolveAltcha } from './queue-sources.js';

/**
 * `fetch`, waiting in line when the waiting room holds the request: its answer is then a 503
 * whose JSON body is the page config. Once released, the request is sent again (a held request
 * never reached the site, so sending it again is safe). `init.body` must be sendable twice: a
 * string, a FormData, a Blob, not a stream.
 */
export async function heldFetch(url: string, init: RequestInit, solve: SolveAltcha): Promise<Response> {
  for (let turn = 1; ; turn++) {
    const response = await fetch(url, init);
    const body =
      response.status == 503
        ? ((await response
            .clone()
            .json()
            .catch(() => null)) as PageConfigJson | null)
        : null;
    if (!body?.queue || turn > 5) return response; // the site's own answer (or held once too often)
    const address = response.url || new URL(url, location.href).href;
    const result = parsePageConfig(body, address);
    if (!result.ok) throw new Error(`The waiting room's answer is malformed:\n${result.problems.join('\n')}`);
    const { config } = result;
    const { sources, pusher } = queueSources(config, solve, new URL(address).origin);
    const end = await firstValueFrom(
      createQueue$(sources, {
        anonymous: !config.userId,
        // As a GET whatever its verb: this function sends it again itself, and a lost place rejoins.
        request: { uuid: config.queue.uuid, uri: config.queue.uri ?? url, method: 'GET', hash: '' },
        timings: config.timings,
      }).pipe(
        filter((status) => status.kind == 'released' || status.kind == 'rejoining' || status.kind == 'failed'),
        finalize(() => pusher.disconnect()),
      ),
    );
    if (end.kind == 'failed') throw new Error(`The wait failed: ${end.message}`);
  }
}
