import Pusher from 'pusher-js';
import type { PusherLike, PusherOptions } from '@waiting-room/streams';

/**
 * Opens the realtime connection (pusher-js connects at once). A file of its own, loaded once the
 * position shows: the options are made by the caller, so that this file bundles nothing the page
 * bundles too.
 */
export function createPusherClient(key: string, options: PusherOptions): PusherLike {
  return new Pusher(key, options);
}

export type CreatePusherClient = typeof createPusherClient;
