import type Pusher from 'pusher';
import { CHANNELS, type QueueOpened } from '@waiting-room/streams/contract';
import type { PusherConfig } from './config';
import type { Fanout } from './realtime/fanout';
import type { Entry } from './store/types';

/** Tells the pages about releases. */
export interface ReleasePublisher {
  /** Tells a released visitor's page that it may replay (the `RequestUnqueud` event). */
  publishRelease(entry: Pick<Entry, 'uuid' | 'userId'>): Promise<void>;
  /**
   * Tells every page waiting in a line that it moved (`QueueMoved` on the line's public `channel`,
   * `App.Queue` for the first room, data `{"served": n}`): every ticket up to `served` has left the
   * head. One event for the whole line, instead of one per visitor or a poll from each.
   */
  publishMoved(channel: string, served: number): Promise<void>;
  /**
   * Tells every page in event `id`'s pre-queue that it has opened (`QueueOpened` on the public
   * `App.Event.{id}`, data `{"spread": ms}`): one event for the whole pre-queue (`events/schedule.ts`).
   */
  publishOpened(id: string, opened: QueueOpened): Promise<void>;
}

/** The channel a visitor's page listens on: private when signed in, public otherwise. */
export function channelFor(entry: Pick<Entry, 'uuid' | 'userId'>): string {
  return entry.userId ? CHANNELS.user(entry.userId, entry.uuid) : CHANNELS.client(entry.uuid);
}

/** Options for the `pusher` SDK against the outside Pusher-protocol server the configuration names. */
export function pusherOptions(config: PusherConfig): Pusher.Options {
  const credentials = { appId: config.appId, key: config.key, secret: config.secret, timeout: 5000 };
  if (config.host === undefined) return { ...credentials, cluster: config.cluster, useTLS: config.useTLS };
  const port = config.port === undefined ? undefined : String(config.port);
  return { ...credentials, host: config.host, port, useTLS: config.useTLS };
}

/**
 * Publishes releases straight into the embedded server's fanout: this instance's sockets at once,
 * the other instances' through Redis when the line is shared. The same events the HTTP events API
 * would carry, without a request to ourselves, its signature and two JSON passes for each.
 */
export function fanoutPublisher(fanout: Fanout): ReleasePublisher {
  return {
    publishRelease(entry) {
      return fanout.publish({ channel: channelFor(entry), event: CHANNELS.releaseEvent, data: JSON.stringify({ uuid: entry.uuid }) });
    },
    publishMoved(channel, served) {
      return fanout.publish({ channel, event: CHANNELS.movedEvent, data: JSON.stringify({ served }) });
    },
    publishOpened(id, opened) {
      return fanout.publish({ channel: CHANNELS.event(id), event: CHANNELS.openedEvent, data: JSON.stringify(opened) });
    },
  };
}

/** Publishes releases through the HTTP events API with the `pusher` SDK, to an outside Pusher-protocol server. */
export function pusherPublisher(options: Pusher.Options): ReleasePublisher {
  // Loaded only when an outside server is used: the embedded one needs no HTTP client for its events.
  const PusherClient = require('pusher') as typeof Pusher;
  const pusher = new PusherClient(options);
  return {
    async publishRelease(entry) {
      await pusher.trigger(channelFor(entry), CHANNELS.releaseEvent, { uuid: entry.uuid });
    },
    async publishMoved(channel, served) {
      await pusher.trigger(channel, CHANNELS.movedEvent, { served });
    },
    async publishOpened(id, opened) {
      await pusher.trigger(CHANNELS.event(id), CHANNELS.openedEvent, opened);
    },
  };
}
