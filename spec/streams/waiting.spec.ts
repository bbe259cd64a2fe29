import { startWith } from 'rxjs';
import { createQueue$, type ConnectionState } from '@waiting-room/streams';
import type { PollResult } from '../../streams/rules/queue-info';
import { waiting } from '../../streams/rules/waiting';
import { answer, callsOf, FAILED_CALL, GET_REQUEST, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

describe('waiting', () => {
  it('should show loading until the first successful answer, then waiting with position, estimated and updatedAt', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('      -c      ', STATES).pipe(startWith<ConnectionState>('connecting'));
      const results$ = hot<PollResult>('        ---a--b ', { a: answer(5, 3), b: answer(4, 6, 7) });
      const expected = '                          gc-a--b ';

      expectObservable(waiting(results$, state$)).toBe(expected, {
        g: loading('connecting'),
        c: loading('connected'),
        a: waitingAt(5, 3),
        b: waitingAt(4, 6, 'connected', 0, 7),
      });
    });
  });

  it('should emit a new waiting for every answer, even with the same position, as updatedAt moves', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('      -', STATES).pipe(startWith<ConnectionState>('connected'));
      const results$ = hot<PollResult>('        -a 59s b', { a: answer(5, 1), b: answer(5, 59002) });
      const expected = '                          la 59s b';

      expectObservable(waiting(results$, state$)).toBe(expected, {
        l: loading('connected'),
        a: waitingAt(5, 1),
        b: waitingAt(5, 59002),
      });
    });
  });

  it('should count failed calls in a row, keep the last position, and reset the count on success', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('      -', STATES).pipe(startWith<ConnectionState>('connected'));
      const results$ = hot<PollResult>('        -a-x-x-b', { a: answer(5, 1), x: FAILED_CALL, b: answer(3, 7) });
      const expected = '                          la-1-2-b';

      expectObservable(waiting(results$, state$)).toBe(expected, {
        l: loading('connected'),
        a: waitingAt(5, 1),
        1: waitingAt(5, 1, 'connected', 1),
        2: waitingAt(5, 1, 'connected', 2),
        b: waitingAt(3, 7),
      });
    });
  });

  it('should stay loading while the calls fail before any answer, counting the failures', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('      -', STATES).pipe(startWith<ConnectionState>('connected'));
      const results$ = hot<PollResult>('        -x-x-a', { x: FAILED_CALL, a: answer(9, 5) });
      const expected = '                          l1-2-a';

      expectObservable(waiting(results$, state$)).toBe(expected, {
        l: loading('connected'),
        1: loading('connected', 1),
        2: loading('connected', 2),
        a: waitingAt(9, 5),
      });
    });
  });

  it('should carry the latest connection state, keeping the position, and never repeat a status', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const state$ = hot<ConnectionState>('      ---u-u-g-c', STATES).pipe(startWith<ConnectionState>('connected'));
      const results$ = hot<PollResult>('        -a        ', { a: answer(5, 1) });
      const expected = '                          la-u---g-c';

      expectObservable(waiting(results$, state$)).toBe(expected, {
        l: loading('connected'),
        a: waitingAt(5, 1),
        u: waitingAt(5, 1, 'unavailable'),
        g: waitingAt(5, 1, 'connecting'),
        c: waitingAt(5, 1, 'connected'),
      });
    });
  });

  it('should stamp updatedAt with the injected scheduler time of each answer', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const queueInfo = callsOf(cold('--(a|)', { a: info(5) }), cold('--(b|)', { b: info(4) }));
      const state$ = hot('-c', STATES);
      const unsub = '     ^ 70s !';
      const expected = '  ic-a 59999ms b';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        a: waitingAt(5, 3),
        b: waitingAt(4, 60_003),
      });
    });
  });
});
