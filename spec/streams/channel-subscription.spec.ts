import { createQueue$ } from '@waiting-room/streams';
import { subscribeChannel } from '../../streams/rules/channel-subscription';
import { GET_REQUEST, loading, newScheduler, sourcesWith, STATES } from './helpers';

describe('channel subscription', () => {
  it('should request the channel subscription on each connected, tearing the previous one down first', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c-u-g-c--', STATES);
      const request = cold('     -');
      const unsub = '            ^---------!';
      const requests = ['                        -^-----!   ', '                        -------^--!'];

      expectObservable(
        subscribeChannel(state$, () => request),
        unsub,
      ).toBe('');
      expectSubscriptions(request.subscriptions).toBe(requests);
    });
  });

  it('should report a failed request and request again on the next connected', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions, flush }) => {
      const state$ = hot('       -c---c---', STATES);
      const request = cold('     -#', undefined, 'refused');
      const unsub = '            ^-------!';
      const requests = ['                        -^!      ', '                        -----^!  '];
      const onSourceError = jest.fn();

      expectObservable(
        subscribeChannel(state$, () => request, onSourceError),
        unsub,
      ).toBe('');
      expectSubscriptions(request.subscriptions).toBe(requests);
      flush();
      expect(onSourceError.mock.calls).toEqual([
        ['subscribe', 'refused'],
        ['subscribe', 'refused'],
      ]);
    });
  });

  it('should subscribe the channel in the status stream on connected and keep it until the end', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       --c', STATES);
      const request = cold('     -');
      const unsub = '            ^ 5m !';
      const expected = '         i-c';
      const requests = '         --^ 299998ms !';

      const status$ = createQueue$(sourcesWith({ state$, subscribe: () => request }), {
        anonymous: true,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$, unsub).toBe(expected, { i: loading('initialized'), c: loading('connected') });
      expectSubscriptions(request.subscriptions).toBe(requests);
    });
  });
});
