import { createQueue$ } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { callQueueInfo } from '../../streams/rules/queue-info';
import { answer, callsOf, FAILED_CALL, GET_REQUEST, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

describe('failed calls', () => {
  it('should turn the first answer into a result stamped with the scheduler time, then let go of the call', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const call = cold<QueueInfo>('--a-b', { a: { position: 3, estimated: 6, extra: 'dropped' } as QueueInfo, b: info(2) });

      expectObservable(callQueueInfo(() => call, scheduler)).toBe('--(a|)', { a: answer(3, 2, 6) });
      expectSubscriptions(call.subscriptions).toBe('^-!');
    });
  });

  it.each([
    ['both non-negative whole numbers: kept', { ticket: 15, served: 10 }, { ticket: 15, served: 10 }],
    ['served 0: kept', { ticket: 3, served: 0 }, { ticket: 3, served: 0 }],
    ['no ticket: none', { served: 10 }, {}],
    ['a negative served: none', { ticket: 15, served: -1 }, {}],
    ['a fractional ticket: none', { ticket: 15.5, served: 10 }, {}],
    ['a ticket in a string: none', { ticket: '15', served: 10 }, {}],
  ])('should keep the answer, with ticket and served only when valid (%s)', (_, extension, kept) => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const call = cold<QueueInfo>('-a', { a: { position: 5, estimated: 10, ...extension } as QueueInfo });

      expectObservable(callQueueInfo(() => call, scheduler)).toBe('-(a|)', {
        a: { ok: true, info: { position: 5, estimated: 10, ...kept }, at: 1 },
      });
    });
  });

  it('should turn a failed call into a failure result, never an error', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const call = cold<QueueInfo>('--#', undefined, new Error('503'));

      expectObservable(callQueueInfo(() => call, scheduler)).toBe('--(x|)', { x: FAILED_CALL });
    });
  });

  it('should turn a call that throws, or ends without an answer, into a failure result', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const throwing = () => {
        throw new TypeError('fetch is not a function');
      };

      expectObservable(callQueueInfo(throwing, scheduler)).toBe('(x|)', { x: FAILED_CALL });
      expectObservable(callQueueInfo(() => cold<QueueInfo>('---|'), scheduler)).toBe('---(x|)', { x: FAILED_CALL });
    });
  });

  it.each([
    ['a missing estimate', { position: 3 }],
    ['a negative position', { position: -1, estimated: 0 }],
    ['a position that is not a number', { position: '3', estimated: 6 }],
    ['a NaN estimate', { position: 3, estimated: Number.NaN }],
    ['null', null],
  ])('should count an answer with %s as a failure', (_, body) => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const call = cold<QueueInfo>('-a', { a: body as unknown as QueueInfo });

      expectObservable(callQueueInfo(() => call, scheduler)).toBe('-(x|)', { x: FAILED_CALL });
    });
  });

  it('should keep polling with the last known values after failures, counting them in a row and resetting on success', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = callsOf(
        cold<QueueInfo>('-(a|)', { a: info(5) }),
        cold<QueueInfo>('-#'),
        cold<QueueInfo>('-#'),
        cold<QueueInfo>('-(b|)', { b: info(3) }),
      );
      const unsub = '            ^ 200s !';
      const expected = '         icw 59999ms x 59999ms y 59999ms z';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        x: waitingAt(5, 2, 'connected', 1),
        y: waitingAt(5, 2, 'connected', 2),
        z: waitingAt(3, 180_002),
      });
    });
  });

  it('should stay loading, counting failures, while every call fails', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const subscribed$ = hot('  --s');
      const call = cold<QueueInfo>('-#');
      const unsub = '            ^ 6s !';
      const expected = '         ic12 4999ms 3';

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, queueInfo: () => call }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        1: loading('connected', 1),
        2: loading('connected', 2),
        3: loading('connected', 3),
      });
    });
  });
});
