import { BehaviorSubject, of } from 'rxjs';
import { createQueue$, type ConnectionState } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import {
  BACK,
  callsOf,
  GET_REQUEST,
  info,
  loading,
  NAVIGATE,
  newScheduler,
  PUT_REQUEST,
  ROOT,
  sourcesWith,
  STATES,
  UNAVAILABLE_FAILED,
  waitingAt,
} from './helpers';

describe('createQueue$', () => {
  it('should take an anonymous visitor from loading through the line to the replay of a held form', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -gc', STATES);
      const subscribed$ = hot('  ---s');
      const release$ = hot('     -- 7s r');
      const subscribe = cold('   -');
      const queueRequest = cold('-(a|)');
      const queueInfo = callsOf(cold<QueueInfo>('-(a|)', { a: info(5) }), cold<QueueInfo>('-(a|)', { a: info(4) }), cold<QueueInfo>('-(a|)', { a: info(3) }));
      const expected = '         igcwx 4999ms y 1997ms (n|)';

      const status$ = createQueue$(
        sourcesWith({
          state$,
          subscribed$,
          release$,
          subscribe: () => subscribe,
          queueRequest: () => queueRequest,
          queueInfo,
        }),
        { anonymous: true, request: PUT_REQUEST, scheduler },
      );

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        g: loading('connecting'),
        c: loading('connected'),
        w: waitingAt(5, 3),
        x: waitingAt(4, 4),
        y: waitingAt(3, 5_004),
        n: { kind: 'released', replay: { kind: 'form', action: '/cart/7', method: 'PUT', uuid: 'u-2' } },
      });
      expectSubscriptions(subscribe.subscriptions).toBe('--^ 6999ms !');
      expectSubscriptions(queueRequest.subscriptions).toBe('---^!');
    });
  });

  it('should share one run between subscribers and give a late one the current status at once', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = cold<QueueInfo>('-(a|)', { a: info(5) });
      const first = '            ^ 70s !';
      const late = '             -----^ 69995ms !';
      const firstSees = '        icw 59999ms y';
      const lateSees = '         -----w 59996ms y';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      const values = { i: loading('initialized'), c: loading('connected'), w: waitingAt(5, 2), y: waitingAt(5, 60_002) };
      expectObservable(status$, first).toBe(firstSees, values);
      expectObservable(status$, late).toBe(lateSees, values);
      expectSubscriptions(state$.subscriptions).toBe('^ 70000ms !');
      expectSubscriptions(queueInfo.subscriptions).toBe(['-^!', '60001ms ^!']);
    });
  });

  it('should emit loading first even when the release comes at once, on subscription', () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      // Synchronous, as `of` is: a marble's frame 0 would still come through the scheduler.
      const release$ = of(1);

      const status$ = createQueue$(sourcesWith({ release$ }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$).toBe('(in|)', { i: loading('initialized'), n: NAVIGATE });
    });
  });

  it('should give a subscriber that comes after the end the last status, without a second run', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const release$ = hot('     ---r-----r');
      const queueInfo = cold<QueueInfo>('-(a|)', { a: info(5) });
      const late = '             ----------^';
      const firstSees = '        icw(n|)';
      const lateSees = '         ----------(n|)';

      const status$ = createQueue$(sourcesWith({ state$, release$, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      const values = { i: loading('initialized'), c: loading('connected'), w: waitingAt(5, 2), n: NAVIGATE };
      expectObservable(status$).toBe(firstSees, values);
      expectObservable(status$, late).toBe(lateSees, values);
      expectSubscriptions(release$.subscriptions).toBe('^--!');
      expectSubscriptions(queueInfo.subscriptions).toBe('-^!');
    });
  });

  it('should start a fresh run for a subscriber that comes after every earlier one left before the end', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const first = '            ^--!';
      const next = '             -----^--!';

      const status$ = createQueue$(sourcesWith({ state$ }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, first).toBe('ic', { i: loading('initialized'), c: loading('connected') });
      expectObservable(status$, next).toBe('-----i', { i: loading('initialized') });
      expectSubscriptions(state$.subscriptions).toBe(['^--!', '-----^--!']);
    });
  });

  it('should ask queue_info at once with queueInfoAtStart, show its answer before the connection, and poll again at connected', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       --g--c', STATES);
      const queueInfo = callsOf(cold<QueueInfo>('-(a|)', { a: info(5) }), cold<QueueInfo>('-(a|)', { a: info(4) }));
      const unsub = '            ^ 10s !';
      const expected = '         iwg--cx';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        queueInfoAtStart: true,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        w: waitingAt(5, 1, 'initialized'),
        g: waitingAt(5, 1, 'connecting'),
        c: waitingAt(5, 1, 'connected'),
        x: waitingAt(4, 6),
      });
    });
  });

  it('should ask queue_info first at connected without queueInfoAtStart, as the spec has it', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -g---c', STATES);
      const queueInfo = cold<QueueInfo>('-(a|)', { a: info(5) });
      const unsub = '            ^ 10s !';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, unsub).toBe('ig---cw', { i: loading('initialized'), g: loading('connecting'), c: loading('connected'), w: waitingAt(5, 6) });
      expectSubscriptions(queueInfo.subscriptions).toBe('-----^!');
    });
  });

  it('should hand a state given on subscription to every rule: display, channel subscription and poll', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const state$ = new BehaviorSubject<ConnectionState>('connected');
      const subscribe = cold('   -');
      const queueInfo = cold<QueueInfo>('-----(a|)', { a: info(5) });
      const unsub = '            ^ 1m !';
      const expected = '         (ic)-w';

      const status$ = createQueue$(sourcesWith({ state$, subscribe: () => subscribe, queueInfo: () => queueInfo }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 5),
      });
      expectSubscriptions(subscribe.subscriptions).toBe('^ 60000ms !');
      expectSubscriptions(queueInfo.subscriptions).toBe(['^----!', '60000ms ^!']);
    });
  });

  it('should run its timers on asyncScheduler when no scheduler is given', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const state$ = hot('       -u', STATES);
      const expected = '         iu 29999ms f 1999ms b 2999ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$ }), { anonymous: false, request: GET_REQUEST });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        u: loading('unavailable'),
        f: UNAVAILABLE_FAILED,
        b: BACK,
        r: ROOT,
      });
    });
  });

  it('should use the timing overrides and the spec values for the rest', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const state$ = hot('       -u', STATES);
      const expected = '         iu 999ms f 99ms b 2999ms (r|)';

      const status$ = createQueue$(sourcesWith({ state$ }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        timings: { connectionCheck: 1_000, leaveDelay: 100 },
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        u: loading('unavailable'),
        f: UNAVAILABLE_FAILED,
        b: BACK,
        r: ROOT,
      });
    });
  });

  it('should refuse an invalid timing override with a RangeError naming it', () => {
    expect(() => createQueue$(sourcesWith({}), { anonymous: true, request: GET_REQUEST, timings: { poll: 0 } })).toThrow(
      new RangeError('timings.poll must be a finite number of milliseconds, greater than 0; got 0'),
    );
  });
});
