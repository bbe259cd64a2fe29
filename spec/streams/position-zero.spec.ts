import { createQueue$ } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import type { PollResult } from '../../streams/rules/queue-info';
import { positionZero } from '../../streams/rules/position-zero';
import {
  answer,
  BACK,
  callsOf,
  FAILED_CALL,
  GET_REQUEST,
  info,
  loading,
  NAVIGATE,
  newScheduler,
  POSITION_ZERO_FAILED,
  ROOT,
  sourcesWith,
  STATES,
  waitingAt,
} from './helpers';

const TEN_SECONDS = 10_000;
const MESSAGE = { m: 'Websocket KO - position 0 depuis 10sec' };

describe('position zero', () => {
  it('should report the failure 10 s after the first 0', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-z', { z: answer(0, 1) });
      const unsub = '                  ^ 30s !';
      const expected = '               10001ms m';

      expectObservable(positionZero(results$, TEN_SECONDS, scheduler), unsub).toBe(expected, MESSAGE);
    });
  });

  it('should not restart the timer on later zeros of the same run', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-z 4999ms z 4999ms z', { z: answer(0, 1) });
      const unsub = '                  ^ 30s !';
      const expected = '               10001ms m';

      expectObservable(positionZero(results$, TEN_SECONDS, scheduler), unsub).toBe(expected, MESSAGE);
    });
  });

  it('should cancel the timer when the position becomes non-zero, and start afresh on the next 0', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-z 4999ms a 2999ms z', { z: answer(0, 1), a: answer(1, 5_001) });
      const unsub = '                  ^ 30s !';
      const expected = '               18001ms m';

      expectObservable(positionZero(results$, TEN_SECONDS, scheduler), unsub).toBe(expected, MESSAGE);
    });
  });

  it('should keep the timer running through a failed call between zeros', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-z 4999ms x 1999ms z', { z: answer(0, 1), x: FAILED_CALL });
      const unsub = '                  ^ 30s !';
      const expected = '               10001ms m';

      expectObservable(positionZero(results$, TEN_SECONDS, scheduler), unsub).toBe(expected, MESSAGE);
    });
  });

  it('should not start the timer on failed calls or non-zero positions', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-x-a-x 5s b', { x: FAILED_CALL, a: answer(3, 3), b: answer(1, 5_006) });

      expectObservable(positionZero(results$, TEN_SECONDS, scheduler), '^ 30s !').toBe('');
    });
  });

  it('should fail the status stream with the exact message, then leave 2 s later, letting go of every source', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const release$ = hot('     -- 9s - 1s r');
      const queueInfo = cold<QueueInfo>('-(z|)', { z: info(0) });
      const expected = '         icw 9999ms f 1999ms b 2999ms (r|)';
      const hotSubscription = '  ^ 10001ms !';

      const status$ = createQueue$(sourcesWith({ state$, release$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(0, 2),
        f: POSITION_ZERO_FAILED,
        b: BACK,
        r: ROOT,
      });
      expectSubscriptions(state$.subscriptions).toBe(hotSubscription);
      expectSubscriptions(release$.subscriptions).toBe(hotSubscription);
      expectSubscriptions(queueInfo.subscriptions).toBe('-^!');
    });
  });

  it('should cancel the timer when the release arrives during the 10 s', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const subscribed$ = hot('  --s');
      const release$ = hot('     -- 7s r');
      const queueInfo = cold<QueueInfo>('-(z|)', { z: info(0) });
      const expected = '         icwx 4999ms y 1998ms (n|)';
      const hotSubscription = '  ^ 7001ms !';

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, release$, queueInfo: () => queueInfo }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(0, 2),
        x: waitingAt(0, 3),
        y: waitingAt(0, 5_003),
        n: NAVIGATE,
      });
      expectSubscriptions(state$.subscriptions).toBe(hotSubscription);
      expectSubscriptions(subscribed$.subscriptions).toBe(hotSubscription);
      expectSubscriptions(queueInfo.subscriptions).toBe(['-^!', '--^!', '5002ms ^!']);
    });
  });

  it('should time 10 s from the first 0 through repeated zeros and a failed call in the status stream', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const subscribed$ = hot('  --s');
      const queueInfo = callsOf(
        cold<QueueInfo>('-(z|)', { z: info(0) }),
        cold<QueueInfo>('-(z|)', { z: info(0) }),
        cold<QueueInfo>('-#'),
        cold<QueueInfo>('-(z|)', { z: info(0) }),
      );
      const expected = '         icwx 4999ms y 4998ms f';
      const unsub = '            ^ 12s !';

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, queueInfo }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(0, 2),
        x: waitingAt(0, 3),
        y: waitingAt(0, 3, 'connected', 1),
        f: POSITION_ZERO_FAILED,
      });
    });
  });
});
