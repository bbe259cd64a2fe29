import { createQueue$, type QueueSources } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { endOnError } from '../../streams/rules/source-errors';
import { GET_REQUEST, info, loading, NAVIGATE, newScheduler, POSITION_ZERO_FAILED, sourcesWith, STATES, waitingAt } from './helpers';

describe('source errors', () => {
  it('should end the source at its error and hand the error over, named', () => {
    newScheduler().run(({ hot, expectObservable, flush }) => {
      const release$ = hot('     -a-#', undefined, 'socket gone');
      const onSourceError = jest.fn();

      expectObservable(release$.pipe(endOnError('release$', onSourceError))).toBe('-a-|');
      flush();
      expect(onSourceError.mock.calls).toEqual([['release$', 'socket gone']]);
    });
  });

  it('should end the source quietly when nobody listens for source errors', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      expectObservable(hot('-a-#').pipe(endOnError('state$'))).toBe('-a-|');
    });
  });

  it('should keep the status stream going when the state errors, with the last known state, polls and release', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, flush }) => {
      const state$ = hot('       -c 5s #', STATES, 'adapter bug');
      const release$ = hot('     -- 1m 1s r');
      const queueInfo = cold<QueueInfo>('-(a|)', { a: info(5) });
      const expected = '         icw 59999ms y 999ms (n|)';
      const onSourceError = jest.fn();

      const status$ = createQueue$(sourcesWith({ state$, release$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        onSourceError,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        y: waitingAt(5, 60_002),
        n: NAVIGATE,
      });
      flush();
      expect(onSourceError.mock.calls).toEqual([['state$', 'adapter bug']]);
    });
  });

  it('should keep the watchdogs guarding the visitor when the release events error', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, flush }) => {
      const state$ = hot('       -c', STATES);
      const release$ = hot('     ---#', undefined, 'adapter bug');
      const queueInfo = cold<QueueInfo>('-(z|)', { z: info(0) });
      const expected = '         icw 9999ms f';
      const onSourceError = jest.fn();

      const status$ = createQueue$(sourcesWith({ state$, release$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        onSourceError,
      });

      expectObservable(status$, '^ 11s !').toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(0, 2),
        f: POSITION_ZERO_FAILED,
      });
      flush();
      expect(onSourceError.mock.calls).toEqual([['release$', 'adapter bug']]);
    });
  });

  it.each<keyof QueueSources>(['error$', 'subscribed$'])('should keep the status stream going and release once when %s errors', (name) => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, flush }) => {
      const state$ = hot('       -c', STATES);
      const failing$ = hot('     ---#', undefined, 'adapter bug');
      const release$ = hot('     -- 1m 1s r');
      const queueInfo = cold<QueueInfo>('-(a|)', { a: info(5) });
      const expected = '         icw 59999ms y 999ms (n|)';
      const onSourceError = jest.fn();

      const status$ = createQueue$(sourcesWith({ state$, release$, queueInfo: () => queueInfo, [name]: failing$ }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
        onSourceError,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        y: waitingAt(5, 60_002),
        n: NAVIGATE,
      });
      flush();
      expect(onSourceError.mock.calls).toEqual([[name, 'adapter bug']]);
    });
  });
});
