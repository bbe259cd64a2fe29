import { ReplaySubject } from 'rxjs';
import { createQueue$, isPlacePending, placePending } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { callQueueInfo, type PollResult } from '../../streams/rules/queue-info';
import { sendQueueRequest } from '../../streams/rules/queue-request';
import { waiting } from '../../streams/rules/waiting';
import { answer, callsOf, FAILED_CALL, GET_REQUEST, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

const PENDING_CALL: PollResult = { ok: false, pending: true };
/** What a queue_info call errors with while the place waits for its bot check. */
const PENDING = placePending('queue_info answered 202: the place waits for its bot check');

describe('bot check: the pending marker', () => {
  it('should recognise the error placePending() makes, and any value marked placePending: true', () => {
    expect(PENDING).toBeInstanceOf(Error);
    expect(isPlacePending(PENDING)).toBe(true);
    expect(isPlacePending({ placePending: true })).toBe(true);
  });

  it.each([
    ['an Error', new Error('queue_info answered 202')],
    ['a truthy marker that is not true', { placePending: 1 }],
    ['null', null],
  ])('should not take %s for a pending place', (_, value) => {
    expect(isPlacePending(value)).toBe(false);
  });

  it('should turn a call that fails with the marker into a pending result, not a failed poll', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const pending = cold<QueueInfo>('--#', undefined, PENDING);

      expectObservable(callQueueInfo(() => pending, scheduler)).toBe('--(p|)', { p: PENDING_CALL });
    });
  });
});

describe('bot check: what is shown while the place is pending', () => {
  it('should neither count a pending answer as a failed poll nor change what is shown', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const state$ = hot('  c-------', STATES);
      const results$ = hot('-p-x-p-a-p', { p: PENDING_CALL, x: FAILED_CALL, a: answer(3, 7) });
      const expected = '    c--f---w--';

      expectObservable(waiting(results$, state$)).toBe(expected, {
        c: loading('connected'),
        f: loading('connected', 1),
        w: waitingAt(3, 7),
      });
    });
  });
});

describe('bot check: queue_request waits for the solution', () => {
  it('should send queue_request only once the subscription succeeded and the solution came, carrying it, then emit its answer', () => {
    const sent: Array<string | undefined> = [];
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('-s--------');
      const altcha$ = hot('    ----a-----', { a: 'payload' });
      const call = cold('          --(r|)');
      const expected = '       ------r---';

      expectObservable(
        sendQueueRequest(
          subscribed$,
          (altcha) => {
            sent.push(altcha);
            return call;
          },
          altcha$,
        ),
      ).toBe(expected);
      expectSubscriptions(call.subscriptions).toBe('----^-!');
    });
    expect(sent).toEqual(['payload']);
  });

  it('should emit nothing for a queue_request that failed, and send again with the same solution on the next subscription', () => {
    const calls: string[] = [];
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('-s----s---');
      const altcha$ = cold('   (a|)', { a: 'payload' });
      const call = callsOf(cold('-#'), cold('-(r|)'));
      const expected = '       -------r--';

      expectObservable(
        sendQueueRequest(
          subscribed$,
          (altcha) => {
            calls.push(altcha as string);
            return call();
          },
          altcha$,
        ),
      ).toBe(expected);
      expectSubscriptions(altcha$.subscriptions).toBe(['-(^!)', '------(^!)']);
    });
    expect(calls).toEqual(['payload', 'payload']);
  });

  it('should never send queue_request when no solution comes', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('-s-s------');
      const altcha$ = hot<string>('----------');
      const call = cold('-(r|)');

      expectObservable(
        sendQueueRequest(subscribed$, () => call, altcha$),
        '^ 1m !',
      ).toBe('');
      expectSubscriptions(call.subscriptions).toBe([]);
    });
  });
});

describe('bot check: in the status stream', () => {
  it('should carry a solution found before the subscription, as its source replays it (the page’s promise)', () => {
    const scheduler = newScheduler();
    const sent: Array<string | undefined> = [];
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('     --c------', STATES);
      const subscribed$ = hot('----s----');
      const solved$ = hot('    -a-------', { a: 'payload' });
      const altcha$ = new ReplaySubject<string>(1);
      solved$.subscribe(altcha$);
      const call = cold('          -(r|)');

      const status$ = createQueue$(
        sourcesWith({
          state$,
          subscribed$,
          altcha$,
          queueRequest: (altcha) => {
            sent.push(altcha);
            return call;
          },
        }),
        { anonymous: false, request: GET_REQUEST, scheduler },
      );

      expectObservable(status$, '^ 100ms !').toBe('i-c', { i: loading('initialized'), c: loading('connected') });
      expectSubscriptions(call.subscriptions).toBe('----^!');
    });
    expect(sent).toEqual(['payload']);
  });

  it('should show loading while queue_info says pending, and ask queue_info at once when the queue_request carrying the solution was answered', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('     -c---------------', STATES);
      const subscribed$ = hot('--s-------------');
      const altcha$ = hot('    ------a---------', { a: 'payload' });
      const call = cold('            --(r|)');
      // The 60 s poll: pending at connection; then, asked again once placed, the position.
      const queueInfo = callsOf(cold<QueueInfo>('#', undefined, PENDING), cold('-(a|)', { a: info(4) }));
      const expected = '       ic-------w-------';

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, altcha$, queueInfo, queueRequest: () => call }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, '^ 1s !').toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(4, 9),
      });
      expectSubscriptions(call.subscriptions).toBe('------^-!');
    });
  });

  it('should keep an anonymous visitor loading through pending 5 s polls, then show the position once placed', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('     c----------------', STATES);
      const subscribed$ = hot('-s---------------');
      const altcha$ = hot('    --- 6s a---------', { a: 'payload' });
      const call = cold('          -(r|)');
      // Pending until the solution was sent; every call after answers a position.
      let placed = false;
      const queueInfo = () => (placed ? cold('-(a|)', { a: info(2) }) : cold<QueueInfo>('-#', undefined, PENDING));
      const expected = '       (ic) 6001ms w';

      const status$ = createQueue$(
        sourcesWith({
          state$,
          subscribed$,
          altcha$,
          queueInfo,
          queueRequest: () => {
            placed = true;
            return call;
          },
        }),
        { anonymous: true, request: GET_REQUEST, scheduler },
      );

      expectObservable(status$, '^ 7s !').toBe(expected, { i: loading('initialized'), c: loading('connected'), w: waitingAt(2, 6005) });
    });
  });

  it('should report a solver that fails as a source error and send no queue_request', () => {
    const scheduler = newScheduler();
    const errors: Array<[string, unknown]> = [];
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('     c--------', STATES);
      const subscribed$ = hot('-s-------');
      const altcha$ = cold<string>('--#', undefined, new Error('worker failed'));
      const call = cold('-(r|)');

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, altcha$, queueRequest: () => call }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        onSourceError: (source, error) => errors.push([source, error]),
      });

      expectObservable(status$, '^ 1s !').toBe('(ic)', { i: loading('initialized'), c: loading('connected') });
      expectSubscriptions(call.subscriptions).toBe([]);
    });
    expect(errors).toEqual([['altcha$', new Error('worker failed')]]);
  });

  it('should call queue_request with no argument and ask nothing more when there is no bot check', () => {
    const scheduler = newScheduler();
    const args: unknown[][] = [];
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('     -c------', STATES);
      const subscribed$ = hot('--s-----');
      const call = cold('         -(r|)');
      const queueInfo = cold('  -(a|)', { a: info(5) });

      const status$ = createQueue$(
        sourcesWith({
          state$,
          subscribed$,
          queueInfo: () => queueInfo,
          queueRequest: (...given: unknown[]) => {
            args.push(given);
            return call;
          },
        }),
        { anonymous: false, request: GET_REQUEST, scheduler },
      );

      expectObservable(status$, '^ 1s !').toBe('icw', { i: loading('initialized'), c: loading('connected'), w: waitingAt(5, 2) });
      // Only the 60 s poll's first call: the answered queue_request asks for nothing.
      expectSubscriptions(queueInfo.subscriptions).toBe('-^!');
    });
    expect(args).toEqual([[]]);
  });
});
