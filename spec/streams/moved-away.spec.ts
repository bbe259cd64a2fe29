import { createQueue$, placeMovedAway, readQueueInfo, type QueueStatus } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { callQueueInfo, type PollResult } from '../../streams/rules/queue-info';
import { movedAway } from '../../streams/rules/moved-away';
import { answer, callsOf, FAILED_CALL, GET_REQUEST, info, loading, newScheduler, sourcesWith, STATES, waitingAt } from './helpers';

const MOVED_CALL: PollResult = { ok: false, movedAway: true };
const MOVED: QueueStatus = { kind: 'moved' };
/** What a queue_info call errors with when the place moved to another browser. */
const ELSEWHERE = placeMovedAway('queue_info answered 410 place_moved');

describe('moved away: the answer', () => {
  it('should read a 410 place_moved as a moved place, and any other 410 as a failed poll', async () => {
    const of = (status: number, body: unknown) => ({ status, ok: false, json: async () => body });
    await expect(readQueueInfo(of(410, { error: { code: 'place_moved' } }))).rejects.toMatchObject({ placeMovedAway: true });
    await expect(readQueueInfo(of(410, { error: { code: 'gone' } }))).rejects.not.toMatchObject({ placeMovedAway: true });
  });

  it('should turn a call that fails with the marker into a moved result, not a failed poll', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(callQueueInfo(() => cold<QueueInfo>('--#', undefined, ELSEWHERE), scheduler)).toBe('--(m|)', { m: MOVED_CALL });
      expectObservable(callQueueInfo(() => cold<QueueInfo>('--#', undefined, new Error('503')), scheduler)).toBe('--(x|)', { x: FAILED_CALL });
    });
  });
});

describe('moved away: the rule', () => {
  it('should emit moved on the first handed-off event or moved result, then let go of both', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const results$ = hot<PollResult>('-a-x---m', { a: answer(3, 1), x: FAILED_CALL, m: MOVED_CALL });
      const handedOff$ = hot('          -----h--h');

      expectObservable(movedAway(results$, handedOff$)).toBe('-----(m|)', { m: MOVED });
      expectSubscriptions(results$.subscriptions).toBe('^----!');
      expectSubscriptions(handedOff$.subscriptions).toBe('^----!');
    });
  });
});

describe('moved away: the status stream', () => {
  it('should end in moved on PlaceHandedOff, letting go of every source and poll, so that a release after it replays nothing', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', STATES);
      const subscribed$ = hot('  --s');
      const handedOff$ = hot('   ----h');
      const release$ = hot('     ------r');
      const after = cold<QueueInfo>('-(a|)', { a: info(4) });
      const status$ = createQueue$(
        sourcesWith({ state$, subscribed$, handedOff$, release$, queueInfo: callsOf(cold<QueueInfo>('-(a|)', { a: info(5) }), after) }),
        { anonymous: true, request: GET_REQUEST, scheduler },
      );

      expectObservable(status$).toBe('icwx(m|)', {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        x: waitingAt(4, 3),
        m: MOVED,
      });
      expectSubscriptions(release$.subscriptions).toBe('^---!');
      expectSubscriptions(state$.subscriptions).toBe('^---!');
    });
  });

  it('should end in moved when queue_info says so (the event was missed)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable }) => {
      const state$ = hot('       -c', STATES);
      const queueInfo = callsOf(cold<QueueInfo>('-(a|)', { a: info(5) }), cold<QueueInfo>('-#', undefined, ELSEWHERE));
      const status$ = createQueue$(sourcesWith({ state$, queueInfo }), { anonymous: false, request: GET_REQUEST, scheduler });

      expectObservable(status$).toBe('icw 59999ms (m|)', { i: loading('initialized'), c: loading('connected'), w: waitingAt(5, 2), m: MOVED });
    });
  });
});
