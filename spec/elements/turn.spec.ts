import { createQueue$, placeLost, type ConnectionState, type QueueStatus } from '@waiting-room/streams';
import { TIMINGS, type QueueInfo } from '@waiting-room/streams/contract';
import { WaitingRoomError } from '../../elements/errors';
import { turnOf } from '../../elements/turn';
import { newScheduler, sourcesWith, STATES } from '../streams/helpers';

const REQUEST = { uuid: 'u-1', uri: '/checkout/api', method: 'GET', hash: '' };

describe("heldFetch's turn: the end of a wait, read from the stream core", () => {
  it('should be the release: at the release event, once, letting go of the statuses', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const release$ = hot('-----r--r', { r: {} });
      const status$ = cold<QueueStatus>('w-w-----', {
        w: { kind: 'waiting', position: 3, estimated: 2, updatedAt: 0, connection: 'connected', failedPolls: 0 },
      });
      expectObservable(turnOf(createQueue$(sourcesWith({ release$ }), { anonymous: true, request: REQUEST, scheduler }))).toBe('-----(r|)', { r: 'released' });
      // Progress alone ends nothing.
      expectObservable(turnOf(status$)).toBe('--------');
      expectSubscriptions(release$.subscriptions).toBe('^----!');
    });
  });

  it('should fail with the specification message at the failure, not at the page leaving 2 s later', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('u', STATES);
      const turn$ = turnOf(createQueue$(sourcesWith({ state$ }), { anonymous: true, request: REQUEST, scheduler }));
      expectObservable(turn$).toBe(`${TIMINGS.connectionCheck}ms #`, undefined, new WaitingRoomError('failed', 'Websoket KO - unavailable'));
    });
  });

  it('should fail 10 s after position 0 without the release event, with that message', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot<ConnectionState>('c', STATES);
      const queueInfo = () => cold<QueueInfo>('(a|)', { a: { position: 0, estimated: 0 } });
      const turn$ = turnOf(createQueue$(sourcesWith({ state$, queueInfo }), { anonymous: false, request: REQUEST, scheduler }));
      expectObservable(turn$).toBe(`${TIMINGS.positionZeroTimeout}ms #`, undefined, new WaitingRoomError('failed', 'Websocket KO - position 0 depuis 10sec'));
    });
  });

  it('should say rejoin the rejoin delay after a lost place, whatever the held verb (heldFetch waits as a GET)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot<ConnectionState>('c', STATES);
      const queueInfo = () => cold<QueueInfo>('-#', undefined, placeLost('queue_info answered 404 unknown_uuid'));
      const turn$ = turnOf(createQueue$(sourcesWith({ state$, queueInfo }), { anonymous: false, request: REQUEST, scheduler }));
      expectObservable(turn$).toBe(`- ${TIMINGS.rejoinDelay}ms (j|)`, { j: 'rejoin' });
    });
  });

  it('should fail when the core found no request to wait for (it only leaves)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const turn$ = turnOf(createQueue$(sourcesWith({}), { anonymous: true, request: { ...REQUEST, uri: null }, scheduler }));
      expectObservable(turn$).toBe('#', undefined, new WaitingRoomError('failed', 'The waiting room found no request to wait for'));
    });
  });
});
