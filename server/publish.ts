import Pusher from 'pusher';
import { CHANNELS, type QueueOpened } from '@waiting-room/streams/contract';
import type { PusherConfig } from './config';
import type { Entry } from './store/types';

/** Tells the pages about releases. */
export interface ReleasePublisher {
  /** Tells a released visitor's page that it may replay (the `RequestUnqueud` event). */
  publishRelease(entry: Pick<Entry, 'uuid' | 'userId'>): Promise<void>;
  /**
   * Tells every waiting page that the line moved (`QueueMoved` on the public `App.Queue`, data
   * `{"served": n}`): every ticket up to `served` has left the head. One event for the whole line,
   * instead of one per visitor or a poll from each.
   */
  publishMoved(served: number): Promise<void>;
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

/**
 * Options for the `pusher` SDK: the outside server when one is configured, else the embedded
 * one at `own` (where this process listens), so one code path drives both.
 */
export function pusherOptions(config: PusherConfig, own: { host: string; port: number }): Pusher.Options {
  const credentials = { appId: config.appId, key: config.key, secret: config.secret, timeout: 5000 };
  if (config.embedded) return { ...credentials, host: own.host, port: String(own.port), useTLS: false };
  if (config.host === undefined) return { ...credentials, cluster: config.cluster, useTLS: config.useTLS };
  const port = config.port === undefined ? undefined : String(config.port);
  return { ...credentials, host: config.host, port, useTLS: config.useTLS };
}

/** Publishes releases through the HTTP events API with the `pusher` SDK (embedded server or outside one alike). */
export function pusherPublisher(options: Pusher.Options): ReleasePublisher {
  const pusher = new Pusher(options);
  return {
    async publishRelease(entry) {
      await pusher.trigger(channelFor(entry), CHANNELS.releaseEvent, { uuid: entry.uuid });
    },
    async publishMoved(served) {
      await pusher.trigger(CHANNELS.queue, CHANNELS.movedEvent, { served });
    },
    async publishOpened(id, opened) {
      await pusher.trigger(CHANNELS.event(id), CHANNELS.openedEvent, opened);
    },
  };
}
