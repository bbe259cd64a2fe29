import { declaredEvents } from '../../server/domain/events/declared';
import { checkNoOverlap, EventError, phaseOf, readEventFields, type DropEvent } from '../../server/domain/events/event';

const fields = {
  name: 'Spring drop',
  prequeueStartTime: '2030-05-01T11:30:00+02:00',
  eventStartTime: '2030-05-01T10:00:00Z',
  eventEndTime: '2030-05-01T12:00:00Z',
  shuffleAtEventStart: true,
};

const refusal = (raw: unknown): { code: string; message: string } => {
  try {
    readEventFields(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(EventError);
    return { code: (error as EventError).code, message: (error as EventError).message };
  }
  throw new Error('accepted');
};

describe("an event's fields", () => {
  it('should read a valid event, times in UTC, the defaults filled in', () => {
    expect(readEventFields(fields)).toEqual({
      name: 'Spring drop',
      prequeueStartTime: '2030-05-01T09:30:00.000Z',
      eventStartTime: '2030-05-01T10:00:00.000Z',
      eventEndTime: '2030-05-01T12:00:00.000Z',
      shuffleAtEventStart: true,
      queueingMethod: 'fifo',
      activeLimit: null,
      releasePerMinute: null,
      botChallenge: null,
    });
  });

  it.each<[string, Record<string, unknown>, string, RegExp]>([
    ['an opening before the pre-queue', { prequeueStartTime: '2030-05-01T10:00:01Z' }, 'prequeue_after_start', /eventStartTime.*prequeueStartTime/],
    ['an opening at the start of the pre-queue', { prequeueStartTime: '2030-05-01T10:00:00Z' }, 'prequeue_after_start', /after/],
    ['an end before the opening', { eventEndTime: '2030-05-01T09:59:59Z' }, 'end_before_start', /eventEndTime/],
    ['a shuffle without a pre-queue', { prequeueStartTime: null }, 'shuffle_without_prequeue', /prequeueStartTime/],
    ['a time without its zone', { eventStartTime: '2030-05-01T10:00:00' }, 'bad_event_start_time', /zone/],
    ['a time that is no time', { eventEndTime: 'tomorrow' }, 'bad_event_end_time', /eventEndTime/],
    ['an unknown queueing method', { queueingMethod: 'lottery' }, 'bad_queueing_method', /fifo, random, passthrough, reject/],
    ['an active limit of 0', { activeLimit: 0 }, 'bad_active_limit', /activeLimit/],
    ['a fractional rate', { releasePerMinute: 1.5 }, 'bad_release_per_minute', /releasePerMinute/],
    ['an empty name', { name: ' ' }, 'bad_name', /name/],
    ['a name with a control character', { name: 'Drop\u0000' }, 'bad_name', /without control characters/],
    ['a name with a C1 control (CSI)', { name: 'Drop\u009b2J' }, 'bad_name', /without control characters/],
    ['a name with a line separator', { name: 'Drop\u2028Sold out' }, 'bad_name', /without control characters/],
    ['an unknown field', { new_users_per_minute: 60 }, 'unknown_field', /"new_users_per_minute"/],
    ['an unknown bot check', { botChallenge: 'captcha' }, 'bad_bot_challenge', /"botChallenge" must be one of off, pow/],
  ])('should refuse %s', (_what, change, code, message) => {
    const refused = refusal({ ...fields, ...change });
    expect(refused.code).toBe(code);
    expect(refused.message).toMatch(message);
  });

  it('should tell the phases apart at their edges', () => {
    const event = readEventFields(fields);
    const at = (iso: string) => phaseOf(event, Date.parse(iso));
    expect(at('2030-05-01T09:29:59.999Z')).toBe('scheduled');
    expect(at('2030-05-01T09:30:00Z')).toBe('prequeue');
    expect(at('2030-05-01T10:00:00Z')).toBe('open');
    expect(at('2030-05-01T12:00:00Z')).toBe('ended');
    const plain = readEventFields({ ...fields, prequeueStartTime: null, shuffleAtEventStart: false });
    expect(phaseOf(plain, Date.parse('2030-05-01T09:59:00Z'))).toBe('scheduled');
  });

  it('should refuse two events of a room whose times overlap, pre-queue included, and allow one right after the other', () => {
    const first: DropEvent = { id: 'first', ...readEventFields(fields) };
    const overlapping: DropEvent = {
      id: 'second',
      ...readEventFields({
        ...fields,
        prequeueStartTime: '2030-05-01T11:59:00Z',
        eventStartTime: '2030-05-01T13:00:00Z',
        eventEndTime: '2030-05-01T14:00:00Z',
      }),
    };
    const after: DropEvent = { ...overlapping, prequeueStartTime: '2030-05-01T12:00:00.000Z' };
    expect(() => checkNoOverlap(overlapping, [first])).toThrow(expect.objectContaining({ code: 'event_overlap' }));
    expect(() => checkNoOverlap(after, [first])).not.toThrow();
    expect(() => checkNoOverlap(first, [first])).not.toThrow();
  });
});

describe('declared events', () => {
  const rooms = [{ name: 'shop' }, { name: 'tickets', events: [{ ...fields, name: 'Ticket drop' }] }];

  it("should read EVENTS with their rooms, and each room's own, with ids from their names", () => {
    const declared = declaredEvents('EVENTS', [{ ...fields, room: 'shop' }], rooms);
    expect(declared.map((event) => [event.id, event.room])).toEqual([
      ['spring-drop', 'shop'],
      ['ticket-drop', 'tickets'],
    ]);
  });

  it("should read a room's event with its own bot check", () => {
    const declared = declaredEvents('EVENTS', [], [{ name: 'shop', events: [{ ...fields, botChallenge: 'pow' }] }]);
    expect(declared).toEqual([expect.objectContaining({ id: 'spring-drop', room: 'shop', botChallenge: 'pow' })]);
  });

  it('should take the one room when there is one', () => {
    expect(declaredEvents('EVENTS', [{ ...fields, id: 'drop-1' }], [{ name: 'default' }])).toEqual([
      expect.objectContaining({ id: 'drop-1', room: 'default' }),
    ]);
  });

  it.each<[string, unknown, RegExp]>([
    ['events that are not a list', {}, /EVENTS must be a JSON array/],
    ['an event without its room among several', [fields], /EVENTS\[0\]: name its "room"/],
    ['an unknown room', [{ ...fields, room: 'cellar' }], /"room" must be one of shop, tickets/],
    ['an id used twice', [{ ...fields, room: 'shop', id: 'ticket-drop' }], /"ticket-drop" is used twice/],
    ['a bad id', [{ ...fields, room: 'shop', id: 'Drop!' }], /"id" must be/],
    [
      'two events of a room that overlap',
      [
        { ...fields, room: 'shop' },
        { ...fields, room: 'shop', id: 'other' },
      ],
      /EVENTS\[1\]: The event overlaps "Spring drop"/,
    ],
    ['an event whose end comes first', [{ ...fields, room: 'shop', eventEndTime: '2030-05-01T09:00:00Z' }], /EVENTS\[0\]: the end/],
  ])('should refuse %s, naming it', (_what, listed, message) => {
    expect(() => declaredEvents('EVENTS', listed, rooms)).toThrow(message);
  });
});
