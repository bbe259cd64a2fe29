// An outside project's use of the installed package, run by Node as ES modules: a queue on a
// virtual clock, a page config checked, names read, and a deep import refused. Prints one JSON line.
import { createQueue$, isPlaceLost, placeLost } from '@waiting-room/streams';
import { CHANNELS, isUuid, parsePageConfig, ROUTES, TIMINGS } from '@waiting-room/streams/contract';
import { NEVER, of, VirtualTimeScheduler } from 'rxjs';

// Frame 0 only: the first poll runs, the next never comes.
const scheduler = new VirtualTimeScheduler(undefined, 0);
const statuses = [];
createQueue$(
  {
    state$: of('connected'),
    error$: NEVER,
    subscribed$: NEVER,
    release$: NEVER,
    subscribe: () => NEVER,
    queueInfo: () => of({ position: 3, estimated: 2 }),
    queueRequest: () => NEVER,
  },
  { anonymous: false, request: { uuid: 'u-1', uri: '/checkout', method: 'GET', hash: '' }, scheduler },
).subscribe((status) => statuses.push(status));
scheduler.flush();

const checked = parsePageConfig(
  {
    queue: { uuid: 'u-1', uri: 'https://evil.example/', method: 'post', position: 3 },
    csrfToken: 't',
    realtime: { key: 'k', port: 0 },
    routes: ROUTES,
  },
  'https://shop.example',
);

let deepImport;
try {
  await import('@waiting-room/streams/dist/rules/poll.js');
  deepImport = 'allowed';
} catch (error) {
  deepImport = error.code;
}

console.log(
  JSON.stringify({
    statuses,
    checked,
    channels: [CHANNELS.user(7, 'u-1'), CHANNELS.client('u-1'), CHANNELS.releaseEvent],
    uuids: ['0b7c5b2e-1f7d-4d8e-9a3c-2f1e6b7a9c10', '../admin'].map(isUuid),
    poll: TIMINGS.poll,
    lost: isPlaceLost(placeLost('gone')),
    deepImport,
  }),
);
