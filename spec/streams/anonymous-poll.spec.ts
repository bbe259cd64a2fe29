import { createQueue$, type QueueInfo } from '../../streams';
import { anonymousPoll } from '../../streams/rules/anonymous-poll';
import { answer, GET_REQUEST, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

const FIVE_SECONDS = 5_000;

describe('anonymous poll', () => {
  it('should poll queue_info at once on subscription, then every 5 s', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('  -s');
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '            ^ 12s !';
      const expected = '         --a 4999ms b 4999ms c';
      const calls = ['           -^!', '5001ms ^!', '10001ms ^!'];

      expectObservable(anonymousPoll(subscribed$, () => call, FIVE_SECONDS, scheduler), unsub).toBe(expected, {
        a: answer(5, 2),
        b: answer(5, 5_002),
        c: answer(5, 10_002),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should restart on a later subscription rather than stack a second schedule', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('  -s 2999ms s');
      const call = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '            ^ 10s !';
      const expected = '         --a 2999ms b 4999ms c';
      const calls = ['           -^!', '3001ms ^!', '8001ms ^!'];

      expectObservable(anonymousPoll(subscribed$, () => call, FIVE_SECONDS, scheduler), unsub).toBe(expected, {
        a: answer(5, 2),
        b: answer(5, 3_002),
        c: answer(5, 8_002),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should drop a 5 s tick while a call is in flight', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('  -s');
      const call = cold<QueueInfo>('7s (a|)', { a: info(5) });
      const unsub = '            ^ 20s !';
      const expected = '         7001ms a 9999ms b';
      const calls = ['           -^ 6999ms !', '10001ms ^ 6999ms !'];

      expectObservable(anonymousPoll(subscribed$, () => call, FIVE_SECONDS, scheduler), unsub).toBe(expected, {
        a: answer(5, 7_001),
        b: answer(5, 17_001),
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

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
