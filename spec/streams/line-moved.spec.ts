import { createQueue$ } from '@waiting-room/streams';
import type { LineMoved, QueueInfo } from '@waiting-room/streams/contract';
import { lineMoved, movedUp, type ShownResult } from '../../streams/rules/line-moved';
import type { PollResult } from '../../streams/rules/queue-info';
import { answer, FAILED_CALL, GET_REQUEST, loading, NAVIGATE, newScheduler, POSITION_ZERO_FAILED, sourcesWith, STATES, waitingAt } from './helpers';

/** An answer from a server that counts from tickets: `served = ticket - position`. */
const ticketInfo = (position: number, ticket: number, estimated = position * 2): QueueInfo => ({
  position,
  estimated,
  ticket,
  served: ticket - position,
});
const ticketed = (position: number, ticket: number, at: number, estimated = position * 2): PollResult => ({
  ok: true,
  info: ticketInfo(position, ticket, estimated),
  at,
});
/** What a move shows: the answer's info moved up, stamped with the move's time. */
const pushed = (info: QueueInfo, at: number): ShownResult => ({ ok: true, info, at, pushed: true });
const moved = (served: number): LineMoved => ({ served });

describe('line moved', () => {
  it('should move the visitor up at once to ticket - served, scaling the estimate, stamped with the time of the move', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-a----', { a: ticketed(5, 15, 1, 10) });
      const moved$ = hot<LineMoved>('   ---m-n', { m: moved(12), n: moved(13) });
      const expected = '               -a-m-n';

      expectObservable(lineMoved(results$, moved$, scheduler)).toBe(expected, {
        a: ticketed(5, 15, 1, 10),
        // ceil(10 × 3 / 5) = 6, then ceil(10 × 2 / 5) = 4: always from the answer's own estimate.
        m: pushed({ ...ticketInfo(5, 15, 10), position: 3, estimated: 6 }, 3),
        n: pushed({ ...ticketInfo(5, 15, 10), position: 2, estimated: 4 }, 5),
      });
    });
  });

  it('should not move the visitor back when an answer made before a move arrives after it (out of order)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      // The answer at frame 1 says served 10; the move at 3 says 13; the answer at 5 was made
      // before that move (served 11, e.g. by another instance) and arrives after it.
      const results$ = hot<PollResult>('-a---b---c', { a: ticketed(5, 15, 1), b: ticketed(4, 15, 5), c: ticketed(1, 15, 9) });
      const moved$ = hot<LineMoved>('   ---m----', { m: moved(13) });
      const expected = '               -a-m-b---c';

      expectObservable(lineMoved(results$, moved$, scheduler)).toBe(expected, {
        a: ticketed(5, 15, 1),
        m: pushed({ ...ticketInfo(5, 15), position: 2, estimated: 4 }, 3),
        // Still 2, and the answer's time: a successful call, shown as of its arrival.
        b: { ok: true, info: { ...ticketInfo(4, 15), position: 2, estimated: 4 }, at: 5 },
        c: ticketed(1, 15, 9),
      });
    });
  });

  it('should ignore a move older than what is shown', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-a---', { a: ticketed(3, 15, 1) });
      const moved$ = hot<LineMoved>('   ---mn', { m: moved(11), n: moved(12) });

      expectObservable(lineMoved(results$, moved$, scheduler)).toBe('-a---', { a: ticketed(3, 15, 1) });
    });
  });

  it('should remember a move before the first answer without showing anything, and apply it to that answer', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('----a', { a: ticketed(5, 15, 4) });
      const moved$ = hot<LineMoved>('   -m---', { m: moved(12) });
      const expected = '               ----a';

      expectObservable(lineMoved(results$, moved$, scheduler)).toBe(expected, {
        a: { ok: true, info: { ...ticketInfo(5, 15), position: 3, estimated: 6 }, at: 4 },
      });
    });
  });

  it('should never move the visitor to 0: at most to 1, and a position 0 answered stays 0', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-a----z--', { a: ticketed(2, 15, 1, 3), z: ticketed(0, 15, 6, 0) });
      const moved$ = hot<LineMoved>('   ---mn--o', { m: moved(15), n: moved(20), o: moved(30) });
      const expected = '               -a-m--z--';

      expectObservable(lineMoved(results$, moved$, scheduler)).toBe(expected, {
        a: ticketed(2, 15, 1, 3),
        // Position 1; ceil(3 × 1 / 2) = 2 minutes.
        m: pushed({ ...ticketInfo(2, 15, 3), position: 1, estimated: 2 }, 3),
        z: ticketed(0, 15, 6, 0),
      });
    });
  });

  it('should keep the estimate at 1 minute or more and never above the answered one', () => {
    expect(movedUp(ticketInfo(10, 20, 1), 19)).toMatchObject({ position: 1, estimated: 1 });
    expect(movedUp(ticketInfo(10, 20, 0), 15)).toMatchObject({ position: 5, estimated: 0 });
    expect(movedUp(ticketInfo(100, 200, 2.5), 101)).toMatchObject({ position: 99, estimated: 2.5 });
    expect(movedUp(ticketInfo(100, 200, 50), 150)).toMatchObject({ position: 50, estimated: 25 });
  });

  it('should ignore moves when the answer carries no ticket', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-a----', { a: answer(5, 1) });
      const moved$ = hot<LineMoved>('   ---mn', { m: moved(3), n: moved(1_000) });

      expectObservable(lineMoved(results$, moved$, scheduler)).toBe('-a----', { a: answer(5, 1) });
    });
  });

  it('should ignore a served that is not a non-negative whole number', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-a--------', { a: ticketed(5, 15, 1) });
      const moved$ = hot<LineMoved>('   --vwxyz-m', {
        v: moved(-1),
        w: moved(12.5),
        x: { served: '12' } as unknown as LineMoved,
        y: null as unknown as LineMoved,
        z: moved(Number.POSITIVE_INFINITY),
        m: moved(11),
      });
      const expected = '               -a------m';

      expectObservable(lineMoved(results$, moved$, scheduler)).toBe(expected, {
        a: ticketed(5, 15, 1),
        m: pushed({ ...ticketInfo(5, 15), position: 4, estimated: 8 }, 8),
      });
    });
  });

  it('should pass failed calls through as they are', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const results$ = hot<PollResult>('-x-a-x', { x: FAILED_CALL, a: ticketed(5, 15, 3) });
      const moved$ = hot<LineMoved>('   -----');

      expectObservable(lineMoved(results$, moved$, scheduler)).toBe('-x-a-x', { x: FAILED_CALL, a: ticketed(5, 15, 3) });
    });
  });

  it('should move a signed-in visitor up between its 60 s polls, keeping the failed-call count, and stay loading before the first answer', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      // The first call fails; the second (the 60 s tick) answers position 5 of ticket 15.
      const calls = [cold<QueueInfo>('-#'), cold<QueueInfo>('-(a|)', { a: ticketInfo(5, 15) }), cold<QueueInfo>('-#')];
      let call = 0;
      const queueInfo = () => calls[Math.min(call++, calls.length - 1)];
      const moved$ = hot<LineMoved>('-- 10s m 59999ms n 60000ms o', { m: moved(11), n: moved(12), o: moved(13) });
      const expected = '             icx 59999ms a 9999ms b 49999ms y 10s z';
      const unsub = '                ^ 140s !';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo, moved$ }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        x: loading('connected', 1),
        a: waitingAt(4, 60_002, 'connected', 0, 8),
        // The move at 10 s was remembered: the answer shows 15 - 11 = 4.
        b: waitingAt(3, 70_002, 'connected', 0, 6),
        y: waitingAt(3, 70_002, 'connected', 1, 6),
        z: waitingAt(2, 130_003, 'connected', 1, 4),
      });
    });
  });

  it('should let go of moved$ at the release', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = cold<QueueInfo>('-(a|)', { a: ticketInfo(5, 15) });
      const moved$ = hot<LineMoved>('-- 3s m 2s m', { m: moved(12) });
      const release$ = hot('     -- 4s r');
      const expected = '         icw 2999ms m 999ms (n|)';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo, moved$, release$ }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        m: waitingAt(3, 3_002, 'connected', 0, 6),
        n: NAVIGATE,
      });
      expectSubscriptions(moved$.subscriptions).toBe('^ 4001ms !');
    });
  });

  it('should leave the position-0 watchdog running through moves: only queue_info says 0, only a non-zero answer cancels it', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = cold<QueueInfo>('-(z|)', { z: ticketInfo(0, 15) });
      const moved$ = hot<LineMoved>('-- 1s m 1s n', { m: moved(15), n: moved(20) });
      const expected = '         icw 9999ms f';
      const unsub = '            ^ 11s !';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo, moved$ }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(0, 2),
        f: POSITION_ZERO_FAILED,
      });
    });
  });

  it('should report an error in moved$ and carry on with the polls', () => {
    const scheduler = newScheduler();
    const errors: unknown[] = [];
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = cold<QueueInfo>('-(a|)', { a: ticketInfo(5, 15) });
      const moved$ = hot<LineMoved>('---#', undefined, new Error('bad frame'));
      const expected = '         icw';
      const unsub = '            ^ 10s !';

      const status$ = createQueue$(sourcesWith({ state$, queueInfo: () => queueInfo, moved$ }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
        onSourceError: (source, error) => errors.push([source, (error as Error).message]),
      });

      expectObservable(status$, unsub).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
      });
    });
    expect(errors).toEqual([['moved$', 'bad frame']]);
  });
});
