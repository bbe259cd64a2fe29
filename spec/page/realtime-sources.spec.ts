import { Subscription } from 'rxjs';
import { createRealtimeSources, SubscriptionError } from '../../src/adapters/realtime-sources';
import { channelName } from '../../src/adapters/channel-name';
import { FakePusher } from './fakes/fake-pusher';

const CHANNEL = 'App.Client.abc';

describe('realtime adapter: channel names', () => {
  it('should use the private user channel for a signed-in user', () => {
    expect(channelName(42, 'abc')).toBe('private-App.User.42.abc');
  });

  it('should use the public client channel for an anonymous visitor', () => {
    expect(channelName(0, 'abc')).toBe('App.Client.abc');
  });
});

describe('realtime adapter: connection', () => {
  let pusher: FakePusher;
  let subscriptions: Subscription;
  beforeEach(() => {
    pusher = new FakePusher();
    subscriptions = new Subscription();
  });
  afterEach(() => subscriptions.unsubscribe());

  it('should emit the current state at once, then each state_change', () => {
    const states: string[] = [];
    subscriptions.add(createRealtimeSources(pusher, CHANNEL).state$.subscribe((state) => states.push(state)));
    pusher.enter('connected');
    pusher.enter('unavailable');
    expect(states).toEqual(['connecting', 'connected', 'unavailable']);
  });

  it('should emit each connection error', () => {
    const errors: unknown[] = [];
    subscriptions.add(createRealtimeSources(pusher, CHANNEL).error$.subscribe((error) => errors.push(error)));
    const error = { type: 'WebSocketError', error: {} };
    pusher.connection.emit('error', error);
    expect(errors).toEqual([error]);
  });

  it('should unbind every handler on teardown', () => {
    const sources = createRealtimeSources(pusher, CHANNEL);
    const subscription = new Subscription();
    subscription.add(sources.state$.subscribe());
    subscription.add(sources.error$.subscribe());
    subscription.add(sources.release$.subscribe());
    subscription.add(sources.subscribed$.subscribe());
    subscription.add(sources.subscribe().subscribe());
    expect(pusher.connection.boundTotal()).toBeGreaterThan(0);
    expect(pusher.channels.get(CHANNEL)!.boundTotal()).toBeGreaterThan(0);
    subscription.unsubscribe();
    expect(pusher.connection.boundTotal()).toBe(0);
    expect(pusher.channels.get(CHANNEL)!.boundTotal()).toBe(0);
  });
});

describe('realtime adapter: channel subscription', () => {
  let pusher: FakePusher;
  let subscriptions: Subscription;
  beforeEach(() => {
    pusher = new FakePusher();
    subscriptions = new Subscription();
  });
  afterEach(() => subscriptions.unsubscribe());

  it('should not join the channel before subscribe() is called (the core calls it on connected)', () => {
    const sources = createRealtimeSources(pusher, CHANNEL);
    subscriptions.add(sources.release$.subscribe());
    subscriptions.add(sources.subscribed$.subscribe());
    expect(pusher.subscribeCalls).toEqual([]);
    subscriptions.add(sources.subscribe().subscribe());
    expect(pusher.subscribeCalls).toEqual([CHANNEL]);
  });

  it('should emit once subscribed, then complete; subscribed$ sees pusher:subscription_succeeded', () => {
    const sources = createRealtimeSources(pusher, CHANNEL);
    const subscribed: unknown[] = [];
    subscriptions.add(sources.subscribed$.subscribe((data) => subscribed.push(data)));
    const events: string[] = [];
    subscriptions.add(sources.subscribe().subscribe({ next: () => events.push('next'), complete: () => events.push('complete') }));
    expect(events).toEqual([]);
    pusher.confirm(CHANNEL);
    expect(events).toEqual(['next', 'complete']);
    expect(subscribed).toEqual([{}]);
  });

  it('should emit at once when the channel is already subscribed (a reconnect pusher-js handled first)', () => {
    const sources = createRealtimeSources(pusher, CHANNEL);
    subscriptions.add(sources.subscribe().subscribe());
    pusher.confirm(CHANNEL);
    const events: string[] = [];
    subscriptions.add(sources.subscribe().subscribe({ next: () => events.push('next'), complete: () => events.push('complete') }));
    expect(events).toEqual(['next', 'complete']);
  });

  it('should error with a SubscriptionError on pusher:subscription_error', () => {
    const errors: unknown[] = [];
    subscriptions.add(
      createRealtimeSources(pusher, CHANNEL)
        .subscribe()
        .subscribe({ error: (error) => errors.push(error) }),
    );
    pusher.channels.get(CHANNEL)!.emit('pusher:subscription_error', { type: 'AuthError', error: 'Forbidden', status: 403 });
    expect(errors).toEqual([expect.any(SubscriptionError)]);
    expect((errors[0] as SubscriptionError).detail).toEqual({ type: 'AuthError', error: 'Forbidden', status: 403 });
    expect((errors[0] as Error).message).toContain(`Subscription to ${CHANNEL} failed`);
  });

  it('should error with a SubscriptionError on a connection error with code 4009', () => {
    const errors: unknown[] = [];
    subscriptions.add(
      createRealtimeSources(pusher, CHANNEL)
        .subscribe()
        .subscribe({ error: (error) => errors.push(error) }),
    );
    pusher.connection.emit('error', { type: 'PusherError', data: { code: 4001, message: 'other' } });
    expect(errors).toEqual([]);
    pusher.connection.emit('error', { type: 'PusherError', data: { code: 4009, message: 'Connection is unauthorized' } });
    expect(errors).toEqual([expect.any(SubscriptionError)]);
  });

  it('should join App.Queue with the visitor channel, once, and emit the QueueMoved data only', () => {
    const sources = createRealtimeSources(pusher, CHANNEL);
    const moves: unknown[] = [];
    subscriptions.add(sources.moved$.subscribe((data) => moves.push(data)));
    expect(pusher.subscribeCalls).toEqual([]);
    subscriptions.add(sources.subscribe().subscribe());
    // A reconnect: pusher-js joins App.Queue again by itself.
    subscriptions.add(sources.subscribe().subscribe());
    expect(pusher.subscribeCalls).toEqual([CHANNEL, 'App.Queue', CHANNEL]);
    const line = pusher.channels.get('App.Queue')!;
    line.emit('QueueMoved', { served: 41 }, {});
    line.emit('RequestUnqueud', { uuid: 'abc' });
    pusher.channels.get(CHANNEL)!.emit('QueueMoved', { served: 99 });
    expect(moves).toEqual([{ served: 41 }]);
  });

  it('should unbind QueueMoved on teardown', () => {
    const sources = createRealtimeSources(pusher, CHANNEL);
    const subscription = sources.moved$.subscribe();
    subscriptions.add(sources.subscribe().subscribe());
    expect(pusher.channels.get('App.Queue')!.bound('QueueMoved')).toBe(1);
    subscription.unsubscribe();
    expect(pusher.channels.get('App.Queue')!.bound('QueueMoved')).toBe(0);
  });

  it('should emit the release event data only, once the channel exists', () => {
    const sources = createRealtimeSources(pusher, CHANNEL);
    const releases: unknown[] = [];
    subscriptions.add(sources.release$.subscribe((data) => releases.push(data)));
    subscriptions.add(sources.subscribe().subscribe());
    const channel = pusher.channels.get(CHANNEL)!;
    // pusher-js passes (data, metadata) to channel handlers.
    channel.emit('RequestUnqueud', { uuid: 'abc' }, { user_id: undefined });
    channel.emit('SomethingElse', { uuid: 'abc' });
    expect(releases).toEqual([{ uuid: 'abc' }]);
  });
});
