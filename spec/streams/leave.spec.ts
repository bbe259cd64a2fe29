import type { Observable } from 'rxjs';
import { createQueue$ } from '@waiting-room/streams';
import type { QueueInfo } from '@waiting-room/streams/contract';
import { leave } from '../../streams/rules/leave';
import { BACK, GET_REQUEST, newScheduler, ROOT } from './helpers';

describe('leave', () => {
  it('should go back at once, then to the root 3 s later, then complete', () => {
    const scheduler = newScheduler();
    scheduler.run(({ expectObservable }) => {
      expectObservable(leave(3_000, scheduler)).toBe('b 2999ms (r|)', { b: BACK, r: ROOT });
    });
  });

  it.each([
    ['null', null],
    ['empty', ''],
    ['blank', '  '],
  ])('should leave at once with a %s request URI, subscribing to nothing else', (_, uri) => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c', { c: 'connected' as const });
      const error$ = hot('       -e');
      const subscribed$ = hot('  --s');
      const release$ = hot('     ---r');
      const subscribe = jest.fn<Observable<unknown>, []>();
      const queueInfo = jest.fn<Observable<QueueInfo>, []>();
      const queueRequest = jest.fn<Observable<unknown>, []>();
      const expected = '         b 2999ms (r|)';

      const status$ = createQueue$(
        { state$, error$, subscribed$, release$, subscribe, queueInfo, queueRequest },
        { anonymous: true, request: { ...GET_REQUEST, uri }, scheduler },
      );

      expectObservable(status$).toBe(expected, { b: BACK, r: ROOT });
      for (const source of [state$, error$, subscribed$, release$]) {
        expectSubscriptions(source.subscriptions).toBe([]);
      }
      scheduler.flush();
      expect(subscribe).not.toHaveBeenCalled();
      expect(queueInfo).not.toHaveBeenCalled();
      expect(queueRequest).not.toHaveBeenCalled();
    });
  });
});
