import { startWith, type Observable } from 'rxjs';
import { createQueue$, type ConnectionState } from '@waiting-room/streams';
import { connectionCheck } from '../../streams/rules/connection-check';
import { BACK, GET_REQUEST, loading, NAVIGATE, newScheduler, ROOT, sourcesWith, STATES, UNAVAILABLE_FAILED } from './helpers';

const THIRTY_SECONDS = 30_000;
const MESSAGE = { m: 'Websoket KO - unavailable' };
const from = (current: ConnectionState, changes$: Observable<ConnectionState>) => changes$.pipe(startWith(current));

describe('connection check', () => {
  it('should report the failure 30 s after unavailable when the connection is still not connected', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('-u', STATES);
      const error$ = hot('                 --');
      const expected = '                   30001ms m';

      expectObservable(connectionCheck(from('connected', state$), error$, THIRTY_SECONDS, scheduler), '^ 1m !').toBe(expected, MESSAGE);
    });
  });

  it('should report the failure 30 s after an error event when the connection is not connected', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('-g', STATES);
      const error$ = hot('                 -e');
      const expected = '                   30001ms m';

      expectObservable(connectionCheck(from('connected', state$), error$, THIRTY_SECONDS, scheduler), '^ 1m !').toBe(expected, MESSAGE);
    });
  });

  it('should pass after an error event when the connection stayed connected', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('--', STATES);
      const error$ = hot('                 -e');

      expectObservable(connectionCheck(from('connected', state$), error$, THIRTY_SECONDS, scheduler), '^ 1m !').toBe('');
    });
  });

  it('should pass when connected again before the check', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('-u 19999ms g 4999ms c', STATES);
      const error$ = hot('                 --');

      expectObservable(connectionCheck(from('connected', state$), error$, THIRTY_SECONDS, scheduler), '^ 1m !').toBe('');
    });
  });

  it('should look at the state at the moment of the check, not at whether it was connected meanwhile', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('-u 9999ms c 9999ms u', STATES);
      const error$ = hot('                 --');
      const expected = '                   30001ms m';

      expectObservable(connectionCheck(from('connected', state$), error$, THIRTY_SECONDS, scheduler), '^ 70s !').toBe(expected, MESSAGE);
    });
  });

  it('should run one check per window, however many events come during it', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('-u 9999ms g 9999ms u', STATES);
      const error$ = hot('                 -- 9999ms e 4999ms e');
      const expected = '                   30001ms m';

      expectObservable(connectionCheck(from('connected', state$), error$, THIRTY_SECONDS, scheduler), '^ 70s !').toBe(expected, MESSAGE);
    });
  });

  it('should open a new window for an event after the check', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('-u 19999ms c 19999ms u', STATES);
      const error$ = hot('                 --');
      const expected = '                   70001ms m';

      expectObservable(connectionCheck(from('connected', state$), error$, THIRTY_SECONDS, scheduler), '^ 2m !').toBe(expected, MESSAGE);
    });
  });

  it('should fail the status stream with the exact message, then leave 2 s later, letting go of every source', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c 9s u', STATES);
      const error$ = hot('       -- 9s - 9s e');
      const release$ = hot('     -- 9s - 30s r');
      const subscribe = cold('   -');
      const expected = '         ic 9000ms u 29999ms f 1999ms b 2999ms (r|)';
      const hotSubscription = '  ^ 39001ms !';

      const status$ = createQueue$(sourcesWith({ state$, error$, release$, subscribe: () => subscribe }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        u: loading('unavailable'),
        f: UNAVAILABLE_FAILED,
        b: BACK,
        r: ROOT,
      });
      for (const source of [state$, error$, release$]) {
        expectSubscriptions(source.subscriptions).toBe(hotSubscription);
      }
      expectSubscriptions(subscribe.subscriptions).toBe('-^ 39000ms !');
    });
  });

  it('should cancel the check when the release arrives during the 30 s', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c 9s u', STATES);
      const release$ = hot('     -- 9s - 9s r');
      const expected = '         ic 9000ms u 9000ms (n|)';
      const hotSubscription = '  ^ 18002ms !';

      const status$ = createQueue$(sourcesWith({ state$, release$ }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        u: loading('unavailable'),
        n: NAVIGATE,
      });
      expectSubscriptions(state$.subscriptions).toBe(hotSubscription);
    });
  });

  it('should go on in the status stream when connected again before the check', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot('       -c 9s u 9s c', STATES);
      const expected = '         ic 9000ms u 9000ms c';

      const status$ = createQueue$(sourcesWith({ state$ }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, '^ 2m !').toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        u: loading('unavailable'),
      });
    });
  });
});
