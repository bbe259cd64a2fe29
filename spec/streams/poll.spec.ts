import { createQueue$, type QueueInfo } from '../../streams';
import { poll } from '../../streams/rules/poll';
import { answer, callsOf, FAILED_CALL, GET_REQUEST, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

const MINUTE = 60_000;

describe('poll', () => {
  it('should poll queue_info at once on connected, then every 60 s', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('    -c', STATES);
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '         ^ 130s !';
      const expected = '      --a 59999ms b 59999ms c';
      const calls = [
        '                     -^!',
        '                     60001ms ^!',
        '                     120001ms ^!',
      ];

      expectObservable(poll(state$, () => call, MINUTE, scheduler), unsub).toBe(expected, {
        a: answer(5, 2),
        b: answer(5, 60_002),
        c: answer(5, 120_002),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should not poll before the first connected', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('    -g-u-d', STATES);
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });

      expectObservable(poll(state$, () => call, MINUTE, scheduler), '^ 3m !').toBe('');
      expectSubscriptions(call.subscriptions).toBe([]);
    });
  });

  it('should restart at once on a reconnect, cancelling the call in flight, without stacking a second schedule', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('    -c 9999ms c', STATES);
      const call = cold<QueueInfo>('20s (a|)', { a: info(5) });
      const unsub = '         ^ 100s !';
      const expected = '      30001ms a 59999ms b';
      const calls = [
        '                     -^ 9999ms !',
        '                     10001ms ^ 19999ms !',
        '                     70001ms ^ 19999ms !',
      ];

      expectObservable(poll(state$, () => call, MINUTE, scheduler), unsub).toBe(expected, {
        a: answer(5, 30_001),
        b: answer(5, 90_001),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should drop a tick that comes while a call is in flight, so that calls never overlap', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('    -c', STATES);
      const call = cold<QueueInfo>('70s (a|)', { a: info(5) });
      const unsub = '         ^ 200s !';
      const expected = '      70001ms a 119999ms b';
      const calls = [
        '                     -^ 69999ms !',
        '                     120001ms ^ 69999ms !',
      ];

      expectObservable(poll(state$, () => call, MINUTE, scheduler), unsub).toBe(expected, {
        a: answer(5, 70_001),
        b: answer(5, 190_001),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should keep polling through a connection outage and after a failed call', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('    -c 9s u', STATES);
      const queueInfo = callsOf(cold<QueueInfo>('-#'), cold<QueueInfo>('-(a|)', { a: info(4) }));
      const unsub = '         ^ 130s !';
      const expected = '      --x 59999ms a 59999ms b';

      expectObservable(poll(state$, queueInfo, MINUTE, scheduler), unsub).toBe(expected, {
        x: FAILED_CALL,
        a: answer(4, 60_002),
        b: answer(4, 120_002),
      });
    });
  });

  it('should poll every 60 s in the status stream, restarting on a reconnect', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('    -c 9s u 9s c', STATES);
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '         ^ 100s !';
      const expected = '      icw 8999ms u 9000ms ry 59999ms z';
      const calls = [
        '                     -^!',
        '                     18003ms ^!',
        '                     78003ms ^!',
      ];

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
});
