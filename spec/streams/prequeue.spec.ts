import { startWith } from 'rxjs';
import { createQueue$, type ConnectionState, type QueueStatus } from '@waiting-room/streams';
import type { QueueInfo, QueueOpened } from '@waiting-room/streams/contract';
import type { PollResult } from '../../streams/rules/queue-info';
import { waiting } from '../../streams/rules/waiting';
import { answer, callsOf, FAILED_CALL, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

/** A queue_info answer in a pre-queue: no position yet, only when the sale opens. */
const prequeued = (opensIn: number, position = 3): QueueInfo => ({ position, estimated: 2, opensIn });
const inPrequeue = (opensAt: number, connection: ConnectionState = 'connected', failedPolls = 0): QueueStatus => ({
  kind: 'loading',
  connection,
  failedPolls,
  opensAt,
});

describe('pre-queue', () => {
  it('should stay loading while the answers say the pre-queue has not opened, with when it opens, to the second', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('-', STATES).pipe(startWith<ConnectionState>('connected'));
      const results$ = hot<PollResult>('  -a-x-b 5s c', {
        a: { ok: true, info: prequeued(59_400), at: 1 },
        x: FAILED_CALL,
        b: { ok: true, info: prequeued(59_200), at: 5 },
        c: answer(7, 5006),
      });
      const expected = '                  la-x-b 5s c';

      expectObservable(waiting(results$, state$)).toBe(expected, {
        l: loading('connected'),
        // 1 + 59,400 ms is 59.401 s: the minute the sale opens at, whatever the latency of each answer.
        a: inPrequeue(59_000),
        x: inPrequeue(59_000, 'connected', 1),
        b: inPrequeue(59_000),
        c: waitingAt(7, 5006),
      });
    });
  });

  it("should ask for the position within the opening's spread, at the visitor's own moment, then show it", () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('      -c', STATES);
      const opened$ = hot<QueueOpened>('30s o', { o: { spread: 10_000 } });
      const first = cold<QueueInfo>('-(a|)', { a: prequeued(29_998) });
      const second = cold<QueueInfo>('-(a|)', { a: info(2) });
      // Signed in: no 5 s poll. Without the opening the next call would come at 60 s; with it,
      // at 30 s + 8,908 ms (uuid "a": share 0.89081… of the 10 s spread).
      const expected = '        icp 38906ms w';

      const status$ = createQueue$(sourcesWith({ state$, opened$, queueInfo: callsOf(first, second) }), {
        anonymous: false,
        request: { uuid: 'a', uri: '/tickets', method: 'GET', hash: '' },
        scheduler,
      });

      expectObservable(status$, '^ 40s !').toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        p: inPrequeue(30_000),
        w: waitingAt(2, 38_909),
      });
      expectSubscriptions(first.subscriptions).toBe('-^!');
      expectSubscriptions(second.subscriptions).toBe('38908ms ^!');
    });
  });
});
