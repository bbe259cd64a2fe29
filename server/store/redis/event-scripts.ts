/**
 * The Lua scripts of the Redis store's events (see `event-store.ts`), run like the line's own
 * (`scripts.ts`: the same keys, prefix and deadline, after the same prelude), so that each
 * transition is one atomic step of Redis, taken once whichever instance sends it first.
 *
 * Keys, after the store's prefix: `events`, a hash of v (version) and j (the events as JSON);
 * `ev:<id>`, a hash of the event's state (seed, after, open, drawn, announced); `ev:<id>:order`,
 * the draw's uuids in order, comma-separated (one value, not a list: it is written and read whole).
 */

/** The state's fields as {field, value, …}, as HGETALL answers them. */
const STATE = `
local function eventKey(id) return prefix .. 'ev:' .. id end
local function lastTicket() return redis.call('HGET', meta, 't') or '0' end
`;

/** No args. Returns {version or false, JSON or false}. */
const events = `
return redis.call('HMGET', prefix .. 'events', 'v', 'j')
`;

/** args: version, JSON. Returns 1 when saved, 0 when another change came first. */
const saveEvents = `
local key = prefix .. 'events'
local version = tonumber(redis.call('HGET', key, 'v') or '0')
if version ~= tonumber(args[1]) then return 0 end
redis.call('HSET', key, 'v', version + 1, 'j', args[2])
return 1
`;

/** args: id. Returns the state's fields. */
const eventState = `${STATE}
return redis.call('HGETALL', eventKey(args[1]))
`;

/** args: id, seed ('' for none). Keeps them and the last ticket once; returns the state's fields. */
const startPrequeue = `${STATE}
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'after') == 0 then
  redis.call('HSET', key, 'after', lastTicket())
  if args[2] ~= '' then redis.call('HSET', key, 'seed', args[2]) end
end
return redis.call('HGETALL', key)
`;

/** args: id. Keeps the last ticket as the opening's, once; returns the state's fields. */
const openEvent = `${STATE}
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'open') == 0 then
  local last = lastTicket()
  redis.call('HSETNX', key, 'after', last)
  redis.call('HSET', key, 'open', last)
end
return redis.call('HGETALL', key)
`;

/**
 * args: id. Returns {1, the draw's uuids comma-separated} once drawn, else {0, the waiting uuids
 * with a ticket in (after, open], in ticket order}.
 */
const entrantsOf = `${STATE}
local key = eventKey(args[1])
local state = redis.call('HMGET', key, 'drawn', 'after', 'open')
if state[1] then return {1, redis.call('GET', key .. ':order') or ''} end
if not state[2] then return {0, {}} end
return {0, redis.call('ZRANGEBYSCORE', waiting, '(' .. state[2], state[3] or '+inf')}
`;

/**
 * args: id, the draw's uuids comma-separated. Once: the waiting ones among them take, in that
 * order, the tickets they held between them (their entry's t and their score in the line), and
 * the draw is kept. Returns 1 for the call that did it, 0 after.
 */
const applyDraw = `${STATE}
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'drawn') == 1 then return 0 end
local uuids, tickets = {}, {}
for uuid in string.gmatch(args[2], '[^,]+') do
  local fields = redis.call('HMGET', entryKey(uuid), 't', 'a')
  if fields[1] and not fields[2] then
    uuids[#uuids + 1] = uuid
    tickets[#tickets + 1] = tonumber(fields[1])
  end
end
table.sort(tickets)
for i, uuid in ipairs(uuids) do
  redis.call('ZADD', waiting, 'XX', int(tickets[i]), uuid)
  redis.call('HSET', entryKey(uuid), 't', int(tickets[i]))
end
redis.call('SET', key .. ':order', args[2])
redis.call('HSET', key, 'drawn', '1')
return 1
`;

/** args: id. Returns 1 for the first call only. */
const claimAnnouncement = `${STATE}
return redis.call('HSETNX', eventKey(args[1]), 'announced', '1')
`;

/** args: ticket. Returns how many wait with a larger ticket. */
const countAfter = `
return redis.call('ZCOUNT', waiting, '(' .. args[1], '+inf')
`;

/** args: id. */
const forgetEvent = `${STATE}
redis.call('DEL', eventKey(args[1]), eventKey(args[1]) .. ':order')
`;

/** The scripts by the name they are defined under on the client. */
export const EVENT_SCRIPTS = {
  waitingRoomEvents: events,
  waitingRoomSaveEvents: saveEvents,
  waitingRoomEventState: eventState,
  waitingRoomStartPrequeue: startPrequeue,
  waitingRoomOpenEvent: openEvent,
  waitingRoomEntrantsOf: entrantsOf,
  waitingRoomApplyDraw: applyDraw,
  waitingRoomClaimAnnouncement: claimAnnouncement,
  waitingRoomCountAfter: countAfter,
  waitingRoomForgetEvent: forgetEvent,
} as const;
