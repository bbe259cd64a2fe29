import { createQueue$ } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { poll } from '../../streams/rules/poll';
import { answer, callsOf, FAILED_CALL, GET_REQUEST, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

const MINUTE = 60_000;

describe('poll', () => {
  it('should poll queue_info at once on a start, then every period', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const start$ = hot('    -s');
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '         ^ 130s !';
      const expected = '      --a 59999ms b 59999ms c';
      const calls = ['                     -^!', '                     60001ms ^!', '                     120001ms ^!'];

      expectObservable(
        poll(start$, () => call, MINUTE, scheduler),
        unsub,
      ).toBe(expected, {
        a: answer(5, 2),
        b: answer(5, 60_002),
        c: answer(5, 120_002),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should restart at once on the next start, cancelling the call in flight, without stacking a second schedule', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const start$ = hot('    -s 9999ms s');
      const call = cold<QueueInfo>('20s (a|)', { a: info(5) });
      const unsub = '         ^ 100s !';
      const expected = '      30001ms a 59999ms b';
      const calls = ['                     -^ 9999ms !', '                     10001ms ^ 19999ms !', '                     70001ms ^ 19999ms !'];

      expectObservable(
        poll(start$, () => call, MINUTE, scheduler),
        unsub,
      ).toBe(expected, {
        a: answer(5, 30_001),
        b: answer(5, 90_001),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should drop a tick that comes while a call is in flight, so that calls never overlap', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const start$ = hot('    -s');
      const call = cold<QueueInfo>('70s (a|)', { a: info(5) });
      const unsub = '         ^ 200s !';
      const expected = '      70001ms a 119999ms b';
      const calls = ['                     -^ 69999ms !', '                     120001ms ^ 69999ms !'];

      expectObservable(
        poll(start$, () => call, MINUTE, scheduler),
        unsub,
      ).toBe(expected, {
        a: answer(5, 70_001),
        b: answer(5, 190_001),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should keep polling after a failed call', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const start$ = hot('    -s');
      const queueInfo = callsOf(cold<QueueInfo>('-#'), cold<QueueInfo>('-(a|)', { a: info(4) }));
      const unsub = '         ^ 130s !';
      const expected = '      --x 59999ms a 59999ms b';

      expectObservable(poll(start$, queueInfo, MINUTE, scheduler), unsub).toBe(expected, {
        x: FAILED_CALL,
        a: answer(4, 60_002),
        b: answer(4, 120_002),
      });
    });
  });
});

describe('poll every 60 s once connected', () => {
  it('should poll every 60 s in the status stream, restarting on a reconnect', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('    -c 9s u 9s c', STATES);
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '         ^ 100s !';
      const expected = '      icw 8999ms u 9000ms ry 59999ms z';
      const calls = ['                     -^!', '                     18003ms ^!', '                     78003ms ^!'];

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => call }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        u: waitingAt(5, 2, 'unavailable'),
        r: waitingAt(5, 2, 'connected'),
        y: waitingAt(5, 18_004),
        z: waitingAt(5, 78_004),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should not poll before the first connected', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('    -g-d', STATES);
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => call }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, '^ 3m !').toBe('ig-d', { i: loading('initialized'), g: loading('connecting'), d: loading('disconnected') });
      expectSubscriptions(call.subscriptions).toBe([]);
    });
  });

  it('should keep polling while the connection is down: queue_info is plain HTTP', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('    -c 6s u', STATES);
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '         ^ 20s !';
      const expected = '      icw 4999ms x 999ms u 3999ms y 4999ms z';
      const calls = ['        -^!', '5001ms ^!', '10001ms ^!', '15001ms ^!'];

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => call }), {
        anonymous: false,
        request: GET_REQUEST,
        timings: { poll: 5_000 },
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        x: waitingAt(5, 5_002),
        u: waitingAt(5, 5_002, 'unavailable'),
        y: waitingAt(5, 10_002, 'unavailable'),
        z: waitingAt(5, 15_002, 'unavailable'),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });
});

describe('anonymous poll every 5 s once subscribed', () => {
  it('should poll every 5 s for anonymous visitors once subscribed, besides the 60 s poll', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const subscribed$ = hot('  --s');
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '            ^ 11s !';
      const expected = '         icwx 4999ms y 4999ms z';
      const calls = ['           -^!', '--^!', '5002ms ^!', '10002ms ^!'];

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, queueInfo: () => call }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        x: waitingAt(5, 3),
        y: waitingAt(5, 5_003),
        z: waitingAt(5, 10_003),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });
  it('should not poll every 5 s for signed-in visitors', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const subscribed$ = hot('  --s');
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '            ^ 11s !';
      const expected = '         icw';
      const calls = ['           -^!'];

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, queueInfo: () => call }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });
});
