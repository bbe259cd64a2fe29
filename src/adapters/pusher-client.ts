import Pusher from 'pusher-js';
import type { PageConfig } from '@waiting-room/streams/contract';
import { createPusherOptions } from './pusher-options';
import type { PusherLike } from './realtime-sources';

/** Opens the realtime connection for the page config (pusher-js connects at once). */
export function createPusherClient(config: PageConfig): PusherLike {
  return new Pusher(config.realtime.key, createPusherOptions(config));
}
