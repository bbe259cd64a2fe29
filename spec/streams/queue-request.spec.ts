import { createQueue$ } from '@waiting-room/streams';
import { sendQueueRequest } from '../../streams/rules/queue-request';
import { GET_REQUEST, loading, newScheduler, sourcesWith, STATES } from './helpers';

describe('queue request', () => {
  it('should send one queue_request on each successful subscription, each running to its end', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('  -s-s------');
      const call = cold('        ----(a|)');
      const unsub = '            ^---------!';
      const calls = ['                        -^---!     ', '                        ---^---!   '];

      expectObservable(
        sendQueueRequest(subscribed$, () => call),
        unsub,
      ).toBe('');
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should drop a failed queue_request and send a new one on the next subscription', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('  -s---s----');
      const call = cold('        -#', undefined, new Error('419'));
      const unsub = '            ^---------!';
      const calls = ['                        -^!        ', '                        -----^!    '];

      expectObservable(
        sendQueueRequest(subscribed$, () => call),
        unsub,
      ).toBe('');
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });

  it('should not send queue_request before the subscription succeeds', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const subscribed$ = hot('  ----------');
      const call = cold('        -(a|)');

      expectObservable(
        sendQueueRequest(subscribed$, () => call),
        '^ 1m !',
      ).toBe('');
      expectSubscriptions(call.subscriptions).toBe([]);
    });
  });

  it('should send queue_request in the status stream on subscription, and a failed one never ends the stream', () => {
    const scheduler = newScheduler();
    scheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const state$ = hot('       -c        ', STATES);
      const subscribed$ = hot('  --s 9s s  ');
      const call = cold('        -#');
      const release$ = hot('     --- 9s -r ');
      const expected = '         ic- 9s -(n|)';
      const calls = ['                        --^!      ', '                        --- 9s ^! '];

      const status$ = createQueue$(sourcesWith({ state$, subscribed$, release$, queueRequest: () => call }), {
        anonymous: false,
        request: GET_REQUEST,
        scheduler,
      });

      expectObservable(status$).toBe(expected, {
        i: loading('initialized'),
        c: loading('connected'),
        n: { kind: 'released', replay: { kind: 'navigate', target: '/checkout?item=42#pay' } },
      });
      expectSubscriptions(call.subscriptions).toBe(calls);
    });
  });
});
