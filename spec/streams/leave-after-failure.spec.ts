import { createQueue$ } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { leaveAfterFailure } from '../../streams/rules/leave-after-failure';
import { BACK, GET_REQUEST, info, loading, newScheduler, POSITION_ZERO_FAILED, ROOT, sourcesWith, STATES, UNAVAILABLE_FAILED, waitingAt } from './helpers';

describe('leave after failure', () => {
  it('should report the failure at once, go back 2 s later, then to the root 3 s after that, then complete', () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      const expected = 'f 1999ms b 2999ms (r|)';

      expectObservable(leaveAfterFailure('Websoket KO - unavailable', 2_000, 3_000, scheduler)).toBe(expected, {
        f: UNAVAILABLE_FAILED,
        b: BACK,
        r: ROOT,
      });
    });
  });

  it('should lead to leaving through the first failure only, however many are under way', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c 9s u', STATES);
      const queueInfo = cold<QueueInfo>('-(z|)', { z: info(0) });
      const expected = '         icw 8999ms u 999ms f 1999ms b 2999ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(0, 2),
        u: waitingAt(0, 2, 'unavailable'),
        f: POSITION_ZERO_FAILED,
        b: BACK,
        r: ROOT,
      });
    });
  });

  it('should let a release after the failure not matter', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -u', STATES);
      const release$ = hot('     -- 30s r r');
      const expected = '         iu 29999ms f 1999ms b 2999ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$, release$ }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        u: loading('unavailable'),
        f: UNAVAILABLE_FAILED,
        b: BACK,
        r: ROOT,
      });
      expectSubscriptions(release$.subscriptions).toBe('^ 30000ms !');
    });
  });
});
