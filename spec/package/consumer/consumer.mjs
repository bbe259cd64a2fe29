// An outside project's use of the installed package, run by Node as ES modules: a queue on a
// virtual clock, a page config checked, names read, and a deep import refused. Prints one JSON line.
import { createQueue$, isPlaceLost, placeLost } from '@waiting-room/streams';
import { CHANNELS, drawOrder, drawTicket, isUuid, parsePageConfig, ROUTES, TIMINGS, verifyDraw } from '@waiting-room/streams/contract';
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

// The known vector of the draw (docs/drop-day.md), on Node's own Web Crypto.
const seed = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const uuids = [1, 2, 3, 4, 5].map((n) => `00000000-0000-4000-8000-00000000000${n}`);
const tickets = await Promise.all(uuids.map(drawTicket));
const order = await drawOrder(seed, tickets);
const draw = await verifyDraw(
  { event: 'e', commitment: '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd', entrants: 5, seed, order },
  { uuid: uuids[0] },
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
    draw: { order: order.map((ticket) => tickets.indexOf(ticket) + 1), ok: draw.ok, rank: draw.rank },
    deepImport,
  }),
);
