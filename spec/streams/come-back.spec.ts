import { createQueue$ } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { comeBack } from '../../streams/rules/come-back';
import { GET_REQUEST, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

describe('come back', () => {
  it('should count a burst of return signals as one, once they are quiet for 250 ms', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const back$ = hot('     -a 99ms b 99ms c 999ms d');
      const expected = '      - 450ms n 999ms n';

      expectObservable(comeBack(back$, 250, scheduler)).toBe(expected, { n: null });
    });
  });

  it('should ask queue_info once on a return, 250 ms after its last signal, and poll every 60 s from that call', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      // Frozen from 10 s to 100 s: the page is shown again, resumed and online within 20 ms.
      const back$ = hot('        - 99999ms r 9ms v 9ms o');
      const queueInfo = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '            ^ 200s !';
      const calls = [
        // At connected, then (without a return) 60 s later.
        '                         -^!',
        '                         60001ms ^!',
        // The return: 250 ms after its last signal (at 100.020 s), then every 60 s from there.
        '                         100270ms ^!',
        '                         160270ms ^!',
      ];

      const status$ = createQueue$(sourcesWith({ state$, back$, queueInfo: () => queueInfo }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, unsub).toBe('icw 59999ms x 40268ms y 59999ms z', {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        x: waitingAt(5, 60_002),
        y: waitingAt(5, 100_271),
        z: waitingAt(5, 160_271),
      });
      expectSubscriptions(queueInfo.subscriptions).toBe(calls);
    });
  });

  it('should change nothing of the spec without back$', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '            ^ 130s !';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, unsub).toBe('icw 59999ms x 59999ms y', {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        x: waitingAt(5, 60_002),
        y: waitingAt(5, 120_002),
      });
      expectSubscriptions(queueInfo.subscriptions).toBe(['-^!', '60001ms ^!', '120001ms ^!']);
    });
  });
});
