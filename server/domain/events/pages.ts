import { EventError, timeOf, type DropEvent } from './event';

/** Events `GET /admin/events` answers at once by default, and at most. */
export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 500;

/**
 * Where a page of the list ends: the room and the opening (ms) of its last event. The list is in
 * the rooms' order, each room's events by their opening (one room's events never overlap, so no
 * two share it); a cursor names a place in that order, not an event, so that deleting events
 * between two pages neither repeats nor skips any other.
 */
export const CURSOR_PATTERN = /^([a-z0-9][a-z0-9-]{0,31})\.(\d{1,16})$/;

/** A room's name and its events, as listed. */
export interface RoomEvents {
  readonly name: string;
  readonly events: readonly DropEvent[];
}

/**
 * The page of at most `limit` events of `rooms` after `cursor` (from the first without one), each
 * with its room's name, and the cursor of the next page: none when this one is the last. A cursor
 * that names none of `rooms` is refused (`bad_cursor`).
 */
export function pageOf(
  rooms: readonly RoomEvents[],
  limit: number,
  cursor?: string,
): { readonly page: ReadonlyArray<{ readonly room: string; readonly event: DropEvent }>; readonly next?: string } {
  const after = cursor === undefined ? undefined : CURSOR_PATTERN.exec(cursor);
  const from = after ? rooms.findIndex((room) => room.name === after[1]) : 0;
  if (cursor !== undefined && (!after || from < 0)) {
    throw new EventError('bad_cursor', '"after" must be the cursor a page of this list gave (its Link header), for the same rooms.');
  }
  const opening = (event: DropEvent) => timeOf(event.eventStartTime);
  const page: Array<{ room: string; event: DropEvent }> = [];
  for (let index = from; index < rooms.length; index++) {
    const { name, events } = rooms[index];
    const listed = [...events].sort((a, b) => opening(a) - opening(b)).filter((event) => !after || index > from || opening(event) > Number(after[2]));
    for (const event of listed) {
      if (page.length === limit) {
        const last = page[page.length - 1];
        return { page, next: `${last.room}.${opening(last.event)}` };
      }
      page.push({ room: name, event });
    }
  }
  return { page };
}
