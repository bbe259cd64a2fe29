import { createQueue$, isPlaceLost, placeLost, type QueueStatus } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { callQueueInfo, type PollResult } from '../../streams/rules/queue-info';
import { lostPlace } from '../../streams/rules/lost-place';
import { rejoin } from '../../streams/rules/rejoin';
import { answer, callsOf, FAILED_CALL, GET_REQUEST, info, loading, NAVIGATE, newScheduler, PUT_REQUEST, sourcesWith, STATES, waitingAt } from './helpers';

const LOST_CALL: PollResult = { ok: false, lost: true };
const LOST_GET: QueueStatus = { kind: 'lost', rejoin: '/checkout?item=42#pay' };
const LOST_PUT: QueueStatus = { kind: 'lost', rejoin: null };
const REJOINING: QueueStatus = { kind: 'rejoining', target: '/checkout?item=42#pay' };
/** What a queue_info call errors with when the server does not know the place. */
const UNKNOWN = placeLost('queue_info answered 404 unknown_uuid');

describe('lost place: the marker', () => {
  it('should recognise the error placeLost() makes, and any value marked placeLost: true (another copy of the core)', () => {
    const error = placeLost('queue_info answered 404 unknown_uuid');
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toBe('queue_info answered 404 unknown_uuid');
    expect(isPlaceLost(error)).toBe(true);
    expect(isPlaceLost({ placeLost: true })).toBe(true);
  });

  it.each([
    ['an Error', new Error('queue_info answered 404')],
    ['a truthy marker that is not true', { placeLost: 'yes' }],
    ['a string', 'placeLost'],
    ['null', null],
    ['undefined', undefined],
  ])('should not take %s for a lost place', (_, value) => {
    expect(isPlaceLost(value)).toBe(false);
  });

  it('should turn a call that fails with the marker into a lost result, not a failed poll', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const lost = cold<QueueInfo>('--#', undefined, UNKNOWN);
      const failed = cold<QueueInfo>('--#', undefined, new Error('queue_info answered 503'));

      expectObservable(callQueueInfo(() => lost, scheduler)).toBe('--(l|)', { l: LOST_CALL });
      expectObservable(callQueueInfo(() => failed, scheduler)).toBe('--(x|)', { x: FAILED_CALL });
    });
  });
});

describe('lost place: the rule', () => {
  it('should emit lost, with the held GET to load again, on the first lost result only, then let go of the results', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const results$ = hot<PollResult>('-a-x-l-l', { a: answer(3, 1), x: FAILED_CALL, l: LOST_CALL });

      expectObservable(lostPlace(results$, { ...GET_REQUEST, uri: '/checkout?item=42' })).toBe('-----(l|)', { l: LOST_GET });
      expectSubscriptions(results$.subscriptions).toBe('^----!');
    });
  });

  it('should emit lost with nothing to load again for a held PUT (a form is not sent again without the visitor)', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('--l', { l: LOST_CALL });

      expectObservable(lostPlace(results$, { ...PUT_REQUEST, uri: '/cart/7' })).toBe('--(l|)', { l: LOST_PUT });
    });
  });

  it('should rejoin a held GET 3 s after saying the place was lost, then complete', () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      expectObservable(rejoin({ kind: 'lost', rejoin: '/checkout?item=42#pay' }, 3_000, scheduler)).toBe('l 2999ms (r|)', {
        l: LOST_GET,
        r: REJOINING,
      });
    });
  });

  it('should only say the place was lost, and complete at once, when there is nothing to load again', () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      expectObservable(rejoin({ kind: 'lost', rejoin: null }, 3_000, scheduler)).toBe('(l|)', { l: LOST_PUT });
    });
  });
});

describe('lost place: the status stream', () => {
  it('should end in lost, then rejoining 3 s later, letting go of every source and poll at the loss, never counting a failed poll', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const error$ = hot('       --');
      const subscribed$ = hot('  --s');
      const release$ = hot('     --');
      const moved$ = hot<{ served: number }>('--');
      const first = cold<QueueInfo>('-(a|)', { a: info(5) });
      const second = cold<QueueInfo>('-(a|)', { a: info(5) });
      const lost = cold<QueueInfo>('-#', undefined, UNKNOWN);
      const after = cold<QueueInfo>('-(a|)', { a: info(4) });
      const expected = '         icwx 4999ms l 2999ms (r|)';
      const hotSubscription = '  ^ 5002ms !';

      const status$ = createQueue$(sourcesWith({ state$, error$, subscribed$, release$, moved$, queueInfo: callsOf(first, second, lost, after) }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        x: waitingAt(5, 3),
        l: LOST_GET,
        r: REJOINING,
      });
      for (const source of [state$, error$, subscribed$, release$, moved$]) {
        expectSubscriptions(source.subscriptions).toBe(hotSubscription);
      }
      expectSubscriptions(lost.subscriptions).toBe('5002ms ^!');
      // Neither poll calls again: the 5 s one and the 60 s one both ended at the loss.
      expectSubscriptions(after.subscriptions).toBe([]);
    });
  });

  it('should end in lost at once for a held PUT, with no navigation to come', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = callsOf(cold<QueueInfo>('-(a|)', { a: info(5) }), cold<QueueInfo>('-#', undefined, UNKNOWN));
      const expected = '         icw 59999ms (l|)';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo }), { anonymous: false, request: PUT_REQUEST, scheduler });

      expectObservable(status$).toBe(expected, { i: loading('initialized'), c: loading('connected'), w: waitingAt(5, 2), l: LOST_PUT });
      expectSubscriptions(state$.subscriptions).toBe('^ 60001ms !');
    });
  });

  it('should end in lost before any position was shown (a restart before the first answer)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = cold<QueueInfo>('-#', undefined, UNKNOWN);
      const expected = '         icl 2999ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$).toBe(expected, { i: loading('initialized'), c: loading('connected'), l: LOST_GET, r: REJOINING });
    });
  });

  it('should rejoin after the rejoinDelay override', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = cold<QueueInfo>('-#', undefined, UNKNOWN);
      const expected = '         icl 499ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        timings: { rejoinDelay: 500 },
      });

      expectObservable(status$).toBe(expected, { i: loading('initialized'), c: loading('connected'), l: LOST_GET, r: REJOINING });
    });
  });

  it('should stop the position-0 timer at the loss: no failure 10 s after the 0, no leaving', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const subscribed$ = hot('  --s');
      const zero = cold<QueueInfo>('-(z|)', { z: info(0) });
      const lost = cold<QueueInfo>('-#', undefined, UNKNOWN);
      // The rejoin waits 20 s, past the 10 s at which the position-0 timer would have fired.
      const expected = '         icwx 4999ms l 19999ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, queueInfo: callsOf(zero, zero, lost) }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
        timings: { rejoinDelay: 20_000 },
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(0, 2),
        x: waitingAt(0, 3),
        l: LOST_GET,
        r: REJOINING,
      });
      expectSubscriptions(state$.subscriptions).toBe('^ 5002ms !');
      expectSubscriptions(zero.subscriptions).toBe(['-^!', '--^!']);
    });
  });

  it("should stop the connection check at the loss: no 'Websoket KO - unavailable' 30 s after 'unavailable'", () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c-u', STATES);
      const error$ = hot('       ----e');
      const queueInfo = callsOf(cold<QueueInfo>('-(a|)', { a: info(5) }), cold<QueueInfo>('-#', undefined, UNKNOWN));
      // The 1 s poll keeps going while the connection is down; the rejoin waits 40 s, past the check at 30 s.
      const expected = '         icwu 998ms l 39999ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$, error$, queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        timings: { poll: 1_000, rejoinDelay: 40_000 },
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        u: waitingAt(5, 2, 'unavailable'),
        l: LOST_GET,
        r: REJOINING,
      });
      expectSubscriptions(state$.subscriptions).toBe('^ 1001ms !');
      expectSubscriptions(error$.subscriptions).toBe('^ 1001ms !');
    });
  });

  it('should let a release received before the loss win, cancelling the call that would have said lost', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const subscribed$ = hot('  --s');
      const release$ = hot('     ----r');
      const first = cold<QueueInfo>('-(a|)', { a: info(5) });
      const lost = cold<QueueInfo>('---#', undefined, UNKNOWN);
      const expected = '         icw-(n|)';

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, release$, queueInfo: callsOf(first, lost) }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, { i: loading('initialized'), c: loading('connected'), w: waitingAt(5, 2), n: NAVIGATE });
      expectSubscriptions(lost.subscriptions).toBe('--^-!');
    });
  });

  it('should find a place lost after the release irrelevant: the stream ended at the release', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const release$ = hot('     ---r');
      const first = cold<QueueInfo>('-(z|)', { z: info(0) });
      const lost = cold<QueueInfo>('-#', undefined, UNKNOWN);
      const expected = '         icw(n|)';

      const status$ = createQueue$(sourcesWith({ state$, release$, queueInfo: callsOf(first, lost) }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        timings: { poll: 1_000 },
      });

      expectObservable(status$).toBe(expected, { i: loading('initialized'), c: loading('connected'), w: waitingAt(0, 2), n: NAVIGATE });
      expectSubscriptions(lost.subscriptions).toBe([]);
    });
  });

  it('should ignore a release event that comes after the loss, having let go of the release events', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const release$ = hot('     --- 1s r');
      const queueInfo = cold<QueueInfo>('-#', undefined, UNKNOWN);
      const expected = '         icl 2999ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$, release$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, { i: loading('initialized'), c: loading('connected'), l: LOST_GET, r: REJOINING });
      expectSubscriptions(release$.subscriptions).toBe('^-!');
    });
  });

  it('should keep counting other failed calls as failed polls', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = cold<QueueInfo>('-#', undefined, new Error('queue_info answered 404'));
      const expected = '         ic1 999ms 2';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        timings: { poll: 1_000 },
      });

      expectObservable(status$, '^ 1500ms !').toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        1: loading('connected', 1),
        2: loading('connected', 2),
      });
    });
  });
});
