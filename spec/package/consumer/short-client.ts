import Pusher from 'pusher-js';
import { defer } from 'rxjs';
import { createQueue$, pusherOptions, readQueueInfo, realtimeSources } from '@waiting-room/streams';
import { parsePageConfig } from '@waiting-room/streams/contract';

const held = await fetch('/checkout?item=42', { headers: { accept: 'application/json' } }); // 503 while full
const result = parsePageConfig(await held.json(), location.href);
if (!result.ok) throw new Error(result.problems.join('\n'));
const { config } = result;
const { queue, userId, csrfToken, routes, timings } = config;
const pusher = new Pusher(config.realtime.key, pusherOptions(config));
const sources = {
  ...realtimeSources(pusher, config),
  queueInfo: () => defer(async () => readQueueInfo(await fetch(routes.queue_info.replace('{uuid}', encodeURIComponent(queue.uuid)), { cache: 'no-store' }))),
  queueRequest: () =>
    defer(() =>
      fetch(routes.queue_request, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ _token: csrfToken, user_id: userId, uuid: queue.uuid }),
      }),
    ),
};
createQueue$(sources, { anonymous: !userId, request: { ...queue, hash: '' }, timings }).subscribe({
  next(status) {
    if (status.kind == 'waiting' && status.position > 0) console.log(`number ${status.position} in line, about ${status.estimated} min`);
    if (status.kind == 'released') console.log('released: send the request again, it passes');
  },
  complete: () => pusher.disconnect(),
});
