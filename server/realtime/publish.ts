import type Pusher from 'pusher';
import { CHANNELS } from '@waiting-room/streams/contract';
import type { PusherConfig } from '../process/config';
import type { Fanout } from './fanout';
import { channelFor, type ReleasePublisher } from '../domain/release-publisher';

/** Options for the `pusher` SDK against the outside Pusher-protocol server the configuration names. */
export function pusherOptions(config: PusherConfig): Pusher.Options {
  const credentials = { appId: config.appId, key: config.key, secret: config.secret, timeout: 5000 };
  if (config.host === undefined) return { ...credentials, cluster: config.cluster, useTLS: config.useTLS };
  const port = config.port === undefined ? undefined : String(config.port);
  return { ...credentials, host: config.host, port, useTLS: config.useTLS };
}

/**
 * Publishes `room`'s releases straight into the embedded server's fanout: this instance's sockets
 * at once, the other instances' through Redis when the line is shared (on a Cluster, on the room's shard). The same events the HTTP events API
 * would carry, without a request to ourselves, its signature and two JSON passes for each.
 */
export function fanoutPublisher(fanout: Fanout, room?: string): ReleasePublisher {
  const of = room === undefined ? {} : { room };
  return {
    publishRelease(entry) {
      return fanout.publish({ channel: channelFor(entry), event: CHANNELS.releaseEvent, data: JSON.stringify({ uuid: entry.uuid }), ...of });
    },
    publishMoved(channel, served) {
      return fanout.publish({ channel, event: CHANNELS.movedEvent, data: JSON.stringify({ served }), ...of });
    },
    publishOpened(id, opened) {
      return fanout.publish({ channel: CHANNELS.event(id), event: CHANNELS.openedEvent, data: JSON.stringify(opened), ...of });
    },
    publishMessage(channel, message) {
      return fanout.publish({ channel, event: CHANNELS.messageEvent, data: JSON.stringify(message), ...of });
    },
    publishHandedOff(entry) {
      return fanout.publish({ channel: channelFor(entry), event: CHANNELS.handedOffEvent, data: JSON.stringify({ uuid: entry.uuid }), ...of });
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
    async publishMessage(channel, message) {
      await pusher.trigger(channel, CHANNELS.messageEvent, message);
    },
    async publishHandedOff(entry) {
      await pusher.trigger(channelFor(entry), CHANNELS.handedOffEvent, { uuid: entry.uuid });
    },
  };
}
