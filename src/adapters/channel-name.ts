import { CHANNELS } from '@waiting-room/streams/contract';

/** The visitor's channel: private for signed-in users, public for anonymous visitors (spec section 6). */
export function channelName(userId: number, uuid: string): string {
  return userId ? CHANNELS.user(userId, uuid) : CHANNELS.client(uuid);
}
