import { Subscription } from 'rxjs';
import { pusherOptions, realtimeSources, SubscriptionError, type PusherLike } from '@waiting-room/streams';
import { parsePageConfig, type PageConfig } from '@waiting-room/streams/contract';
import { FakePusher } from '../support/fake-pusher';

const CHANNEL = 'App.Client.abc';

/** A checked config with `changes` in it (the visitor's uuid 'abc', anonymous). */
const configWith = ({ realtime = {}, ...changes }: { realtime?: Record<string, unknown>; user?: { id: number }; event?: unknown } = {}): PageConfig => {
  const result = parsePageConfig(
    {
      queue: { uuid: 'abc', uri: '/checkout', method: 'GET', position: 3 },
      csrfToken: 'csrf-token',
      realtime: { key: 'k', cluster: 'eu', ...realtime },
      routes: { queue_request: '/queue/request', queue_info: '/queue/info/{uuid}' },
      ...changes,
    },
    'http://localhost',
  );
  if (!result.ok) throw new Error(result.problems.join('; '));
  return result.config;
};
/** The sources for an anonymous visitor, whose channel is `CHANNEL`. */
const sourcesOf = (pusher: PusherLike) => realtimeSources(pusher, configWith());

describe('realtime adapter: pusher-js options', () => {
  it('should connect to the configured host and port, with the spec transports, timeouts and authorization', () => {
    expect(pusherOptions(configWith({ realtime: { host: 'localhost', port: 8080, forceTLS: false, cluster: 'local' } }))).toEqual({
      cluster: 'local',
      wsHost: 'localhost',
      httpHost: 'localhost',
      httpPort: 8080,
      httpsPort: 8080,
      wsPort: 8080,
      wssPort: 8080,
      forceTLS: false,
      enabledTransports: ['wss', 'xhr_streaming', 'ws', 'xhr_polling'],
      activityTimeout: 120_000,
      pongTimeout: 30_000,
      unavailableTimeout: 10_000,
      channelAuthorization: { endpoint: '/pusher/auth', transport: 'ajax', headers: { 'X-CSRF-TOKEN': 'csrf-token' } },
    });
  });

  it("should default to TLS on port 443 and to the cluster's own host without a host", () => {
    const options = pusherOptions(configWith());
    expect(options).toMatchObject({ cluster: 'eu', forceTLS: true, wsPort: 443, wssPort: 443 });
    expect(options).not.toHaveProperty('wsHost');
    expect(options).not.toHaveProperty('httpHost');
  });

  it("should ask for the authorization at the config's endpoint, on the origin given", () => {
    const config = configWith({ realtime: { authEndpoint: '/room/pusher/auth' } });
    expect(pusherOptions(config).channelAuthorization.endpoint).toBe('/room/pusher/auth');
    expect(pusherOptions(config, 'https://gateway.example').channelAuthorization.endpoint).toBe('https://gateway.example/room/pusher/auth');
  });
});

describe('realtime adapter: channel names', () => {
  it('should use the private user channel for a signed-in user', () => {
    const pusher = new FakePusher();
    realtimeSources(pusher, configWith({ user: { id: 42 } }))
      .subscribe()
      .subscribe()
      .unsubscribe();
    expect(pusher.subscribeCalls).toEqual(['private-App.User.42.abc']);
  });

  it('should use the public client channel for an anonymous visitor', () => {
    const pusher = new FakePusher();
    realtimeSources(pusher, configWith({ user: { id: 0 } }))
      .subscribe()
      .subscribe()
      .unsubscribe();
    expect(pusher.subscribeCalls).toEqual(['App.Client.abc']);
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
    subscriptions.add(sourcesOf(pusher).state$.subscribe((state) => states.push(state)));
    pusher.enter('connected');
    pusher.enter('unavailable');
    expect(states).toEqual(['connecting', 'connected', 'unavailable']);
  });

  it('should emit each connection error', () => {
    const errors: unknown[] = [];
    subscriptions.add(sourcesOf(pusher).error$.subscribe((error) => errors.push(error)));
    const error = { type: 'WebSocketError', error: {} };
    pusher.connection.emit('error', error);
    expect(errors).toEqual([error]);
  });

  it('should unbind every handler on teardown', () => {
    const sources = sourcesOf(pusher);
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
    const sources = sourcesOf(pusher);
    subscriptions.add(sources.release$.subscribe());
    subscriptions.add(sources.subscribed$.subscribe());
    expect(pusher.subscribeCalls).toEqual([]);
    subscriptions.add(sources.subscribe().subscribe());
    expect(pusher.subscribeCalls).toEqual([CHANNEL]);
  });

  it('should emit once subscribed, then complete; subscribed$ sees pusher:subscription_succeeded', () => {
    const sources = sourcesOf(pusher);
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
    const sources = sourcesOf(pusher);
    subscriptions.add(sources.subscribe().subscribe());
    pusher.confirm(CHANNEL);
    const events: string[] = [];
    subscriptions.add(sources.subscribe().subscribe({ next: () => events.push('next'), complete: () => events.push('complete') }));
    expect(events).toEqual(['next', 'complete']);
  });

  it('should error with a SubscriptionError on pusher:subscription_error', () => {
    const errors: unknown[] = [];
    subscriptions.add(
      sourcesOf(pusher)
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
      sourcesOf(pusher)
        .subscribe()
        .subscribe({ error: (error) => errors.push(error) }),
    );
    pusher.connection.emit('error', { type: 'PusherError', data: { code: 4001, message: 'other' } });
    expect(errors).toEqual([]);
    pusher.connection.emit('error', { type: 'PusherError', data: { code: 4009, message: 'Connection is unauthorized' } });
    expect(errors).toEqual([expect.any(SubscriptionError)]);
  });

  it('should join App.Queue with the visitor channel, once, and emit the QueueMoved data only', () => {
    const sources = sourcesOf(pusher);
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
    const sources = sourcesOf(pusher);
    const subscription = sources.moved$.subscribe();
    subscriptions.add(sources.subscribe().subscribe());
    expect(pusher.channels.get('App.Queue')!.bound('QueueMoved')).toBe(1);
    subscription.unsubscribe();
    expect(pusher.channels.get('App.Queue')!.bound('QueueMoved')).toBe(0);
  });

  it('should emit the release event data only, once the channel exists', () => {
    const sources = sourcesOf(pusher);
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

describe('realtime adapter: a scheduled event', () => {
  it("should listen for QueueOpened on the event's channel only in its pre-queue", () => {
    const pusher = new FakePusher();
    expect(realtimeSources(pusher, configWith()).opened$).toBeUndefined();
    const event = { id: 'drop-1', name: 'Drop', opensAt: '2030-01-01T00:00:00Z', shuffle: false };
    const opened: unknown[] = [];
    const subscription = realtimeSources(pusher, configWith({ event })).opened$!.subscribe((data) => opened.push(data));
    pusher.channels.get('App.Event.drop-1')!.emit('QueueOpened', { spread: 1000 }, {});
    subscription.unsubscribe();
    expect(opened).toEqual([{ spread: 1000 }]);
    expect(pusher.channels.get('App.Event.drop-1')!.boundTotal()).toBe(0);
  });
});
