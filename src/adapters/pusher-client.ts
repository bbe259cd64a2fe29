import Pusher from 'pusher-js';
import { pusherOptions, type PusherLike } from '@waiting-room/streams';
import type { PageConfig } from '@waiting-room/streams/contract';

/** Opens the realtime connection for the page config (pusher-js connects at once). */
export function createPusherClient(config: PageConfig): PusherLike {
  return new Pusher(config.realtime.key, pusherOptions(config));
}
