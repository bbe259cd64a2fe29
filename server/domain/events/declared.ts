import { checkNoOverlap, EVENT_ID, readEventFields, slugOf, type DropEvent } from './event';

/** An event declared in the configuration, with the room it belongs to. */
export interface DeclaredEvent extends DropEvent {
  readonly room: string;
}

/**
 * Reads the configuration's events: `listed` (EVENTS or EVENTS_FILE, named `source`), each with
 * an optional `room` (required when there are several rooms) and an optional `id`, and each
 * room's own `events` (ROOMS). An event's id defaults to its name in lower case with dashes,
 * so that it is the same at every start; ids are unique across rooms, and one room's events may
 * not overlap. Throws an Error naming the event and what is wrong.
 */
export function declaredEvents(source: string, listed: unknown, rooms: ReadonlyArray<{ readonly name: string; readonly events?: unknown }>): DeclaredEvent[] {
  if (!Array.isArray(listed)) throw new Error(`${source} must be a JSON array of events.`);
  const entries: { raw: unknown; at: string; room?: string }[] = (listed as unknown[]).map((raw, i) => ({ raw, at: `${source}[${i}]` }));
  for (const room of rooms) {
    if (room.events === undefined) continue;
    if (!Array.isArray(room.events)) throw new Error(`The events of room "${room.name}" must be a JSON array.`);
    room.events.forEach((raw: unknown, i) => entries.push({ raw, at: `room "${room.name}" events[${i}]`, room: room.name }));
  }
  const declared: DeclaredEvent[] = [];
  for (const { raw, at, room: given } of entries) {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Error(`${at} must be an object.`);
    const { id: rawId, room: rawRoom, ...fields } = raw as Record<string, unknown>;
    if (given !== undefined && rawRoom !== undefined) throw new Error(`${at}: a room's own events name no "room".`);
    const room = given ?? roomOf(rawRoom, rooms, at);
    let event: DropEvent;
    try {
      const read = readEventFields(fields, at);
      const id = rawId ?? slugOf(read.name);
      if (typeof id !== 'string' || !EVENT_ID.test(id)) throw new Error(`${at}: "id" must be 1 to 64 lower-case letters, digits or dashes.`);
      event = { id, ...read };
      checkNoOverlap(
        event,
        declared.filter((other) => other.room === room),
      );
    } catch (error) {
      const { message } = error as Error;
      throw new Error(message.startsWith(at) ? message : `${at}: ${message}`, { cause: error });
    }
    if (declared.some((other) => other.id === event.id)) throw new Error(`${at}: the event id "${event.id}" is used twice; give one an "id".`);
    declared.push({ ...event, room });
  }
  return declared;
}

function roomOf(raw: unknown, rooms: ReadonlyArray<{ readonly name: string }>, at: string): string {
  if (raw === undefined) {
    if (rooms.length === 1) return (rooms[0] as { name: string }).name;
    throw new Error(`${at}: name its "room": there are several (${rooms.map((room) => room.name).join(', ')}).`);
  }
  if (typeof raw !== 'string' || !rooms.some((room) => room.name === raw)) {
    throw new Error(`${at}: "room" must be one of ${rooms.map((room) => room.name).join(', ')}.`);
  }
  return raw;
}
