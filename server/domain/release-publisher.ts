import { CHANNELS, type QueueOpened, type RoomMessageJson } from '@waiting-room/streams/contract';
import type { Entry } from '../store/types';

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
  /**
   * Tells every page waiting in a line the operator's message, or that it is cleared
   * (`QueueMessage` on the line's public `channel`, data a `RoomMessageJson`): one event for the
   * whole line, as `publishMoved`.
   */
  publishMessage(channel: string, message: RoomMessageJson): Promise<void>;
  /**
   * Tells the page of a place that moved to another browser (`PlaceHandedOff` on the channel of
   * the place as it was, its old uuid) to stop following it. Optional: without it, that page
   * learns it from its next queue_info.
   */
  publishHandedOff?(entry: Pick<Entry, 'uuid' | 'userId'>): Promise<void>;
}

/** The channel a visitor's page listens on: private when signed in, public otherwise. */
export function channelFor(entry: Pick<Entry, 'uuid' | 'userId'>): string {
  return entry.userId ? CHANNELS.user(entry.userId, entry.uuid) : CHANNELS.client(entry.uuid);
}
