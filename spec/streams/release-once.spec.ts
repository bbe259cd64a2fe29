import { createQueue$ } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { releaseOnce } from '../../streams/rules/release-once';
import { replayOf, type HeldRequest } from '../../streams/rules/replay';
import { GET_REQUEST, info, loading, NAVIGATE, newScheduler, PUT_REQUEST, sourcesWith, STATES, waitingAt } from './helpers';

const held = (method: string, hash = '#pay'): HeldRequest => ({ uuid: 'u-1', uri: '/checkout?item=42', method, hash });

describe('release once', () => {
  it.each(['GET', 'get', 'Get'])('should replay %s by navigating to the URI with the hash kept', (method) => {
    expect(replayOf(held(method))).toEqual({ kind: 'navigate', target: '/checkout?item=42#pay' });
  });

  it('should navigate to the bare URI when there is no hash', () => {
    expect(replayOf(held('GET', ''))).toEqual({ kind: 'navigate', target: '/checkout?item=42' });
  });

  it.each([
    ['POST', 'POST'],
    ['post', 'POST'],
    ['put', 'PUT'],
    [' Delete ', 'DELETE'],
    ['patch', 'PATCH'],
  ])('should replay %p by a form posted to the URI carrying the real method %p and the uuid', (method, real) => {
    expect(replayOf(held(method))).toEqual({ kind: 'form', action: '/checkout?item=42', method: real, uuid: 'u-1' });
  });

  it('should replay a blank method as GET, the HTTP default', () => {
    expect(replayOf(held('  '))).toEqual({ kind: 'navigate', target: '/checkout?item=42#pay' });
  });

  it('should release on the first release event only, then let go of the release events', () => {
    newScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const release$ = hot('     --r-r-r');
      const expected = '         --(n|)';
      const subscription = '     ^-!';

      expectObservable(releaseOnce(release$, held('get'))).toBe(expected, { n: NAVIGATE });
      expectSubscriptions(release$.subscriptions).toBe(subscription);
    });
  });

  it('should end the status stream at the release, letting go of every source, call and poll, ignoring duplicates', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c        ', STATES);
      const error$ = hot('       ----------');
      const subscribed$ = hot('  --s       ');
      const release$ = hot('     -- 4s rr 1m r');
      const subscribe = cold('   -');
      const queueRequest = cold('-(a|)');
      const queueInfo = cold<QueueInfo>('-(a|)', { a: info(5) });
      const expected = '         icwx 3998ms (n|)';
      const hotSubscription = '  ^ 4001ms !';

      const status$ = createQueue$(
        sourcesWith({
          state$,
          error$,
          subscribed$,
          release$,
          subscribe: () => subscribe,
          queueRequest: () => queueRequest,
          queueInfo: () => queueInfo,
        }),
        { anonymous: true, request: GET_REQUEST, scheduler },
      );

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        w: waitingAt(5, 2),
        x: waitingAt(5, 3),
        n: NAVIGATE,
      });
      for (const source of [state$, error$, subscribed$, release$]) {
        expectSubscriptions(source.subscriptions).toBe(hotSubscription);
      }
      expectSubscriptions(subscribe.subscriptions).toBe('-^ 4000ms !');
      expectSubscriptions(queueRequest.subscriptions).toBe('--^!');
      expectSubscriptions(queueInfo.subscriptions).toBe(['-^!', '--^!']);
    });
  });

  it('should release a non-GET request as a form carrying the real method and uuid', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable }) => {
      const release$ = hot('     --r');
      const expected = '         i-(f|)';

      const status$ = createQueue$(sourcesWith({ release$ }), { anonymous: false, request: PUT_REQUEST, scheduler });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        f: { kind: 'released', replay: { kind: 'form', action: '/cart/7', method: 'PUT', uuid: 'u-2' } },
      });
    });
  });
});
