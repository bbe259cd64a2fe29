import type { PusherChannelLike, PusherLike } from '@waiting-room/streams';

type Handler = (...args: unknown[]) => void;

/** A pusher-js event emitter: bind/unbind by event name, emit to whoever is bound. */
export class FakeEmitter {
  private readonly handlers = new Map<string, Handler[]>();

  bind(event: string, callback: Handler): this {
    this.handlers.set(event, [...(this.handlers.get(event) ?? []), callback]);
    return this;
  }

  unbind(event: string, callback: Handler): this {
    this.handlers.set(
      event,
      (this.handlers.get(event) ?? []).filter((handler) => handler !== callback),
    );
    return this;
  }

  /** Calls every handler with all the arguments, as pusher-js does (data, then metadata). */
  emit(event: string, ...args: unknown[]): void {
    for (const handler of this.handlers.get(event) ?? []) handler(...args);
  }

  bound(event: string): number {
    return this.handlers.get(event)?.length ?? 0;
  }

  boundTotal(): number {
    return [...this.handlers.values()].reduce((sum, list) => sum + list.length, 0);
  }
}

export class FakeChannel extends FakeEmitter implements PusherChannelLike {
  subscribed = false;
  constructor(readonly name: string) {
    super();
  }
}

/** A pusher-js client double: connection states, channels, subscriptions. */
export class FakePusher implements PusherLike {
  readonly connection = Object.assign(new FakeEmitter(), { state: 'connecting' });
  readonly channels = new Map<string, FakeChannel>();
  readonly subscribeCalls: string[] = [];
  disconnects = 0;

  subscribe(name: string): FakeChannel {
    this.subscribeCalls.push(name);
    const channel = this.channels.get(name) ?? new FakeChannel(name);
    this.channels.set(name, channel);
    return channel;
  }

  disconnect(): void {
    this.disconnects += 1;
    this.enter('disconnected');
  }

  /** Moves the connection to `current`, emitting `state_change` then the state's own event. */
  enter(current: string): void {
    const previous = this.connection.state;
    this.connection.state = current;
    this.connection.emit('state_change', { previous, current });
    this.connection.emit(current);
  }

  /** The server confirms the subscription of `name`. */
  confirm(name: string): void {
    const channel = this.channels.get(name)!;
    channel.subscribed = true;
    channel.emit('pusher:subscription_succeeded', {});
  }
}
