/**
 * The Lua scripts of the Redis store's events (see `event-store.ts`), run like the line's own
 * (`scripts.ts`: the same keys, prefix and deadline, after the same prelude), so that each
 * transition is one atomic step of Redis, taken once whichever instance sends it first.
 *
 * Keys, after the store's prefix: `events`, a hash of v (version) and j (the events as JSON);
 * `ev:<id>`, a hash of the event's state (seed, after, open, drawn, announced); `ev:<id>:frozen`,
 * the entrants frozen at the opening; `ev:<id>:order`, the draw's uuids in order, comma-separated
 * (single values, not lists: each is written and read whole).
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

/**
 * args: id. Once: keeps the last ticket as the opening's, and freezes the entrants, the waiting
 * places with a ticket in (after, open], as `uuid:ticket,…` in ticket order under `ev:<id>:frozen`
 * (every instance then computes the same draw from them). Returns the state's fields.
 */
const openEvent = `${STATE}
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'open') == 0 then
  local last = lastTicket()
  redis.call('HSETNX', key, 'after', last)
  redis.call('HSET', key, 'open', last)
  local found = redis.call('ZRANGEBYSCORE', waiting, '(' .. redis.call('HGET', key, 'after'), last, 'WITHSCORES')
  local pairs = {}
  for i = 1, #found, 2 do pairs[#pairs + 1] = found[i] .. ':' .. found[i + 1] end
  redis.call('SET', key .. ':frozen', table.concat(pairs, ','))
end
return redis.call('HGETALL', key)
`;

/**
 * args: id. Returns {2, the draw's uuids comma-separated} once drawn, {1, the frozen entrants as
 * \`uuid:ticket,…\`} once open, else {0, the waiting uuids with a ticket above after, in ticket order}.
 */
const entrantsOf = `${STATE}
local key = eventKey(args[1])
local state = redis.call('HMGET', key, 'drawn', 'after', 'open')
if state[1] then return {2, redis.call('GET', key .. ':order') or ''} end
if state[3] then return {1, redis.call('GET', key .. ':frozen') or ''} end
if not state[2] then return {0, {}} end
return {0, redis.call('ZRANGEBYSCORE', waiting, '(' .. state[2], '+inf')}
`;

/**
 * args: id, \`uuid:ticket,…\`. Puts each entrant still waiting on the ticket given (its score in the
 * line and its entry's t); a place gone since is left out. Idempotent, so that instances drawing
 * at once, or one taking over from another that stopped, can only place the same entrants the
 * same way; nothing once drawn. Returns how many it placed.
 */
const placeDrawn = `${STATE}
if redis.call('HEXISTS', eventKey(args[1]), 'drawn') == 1 then return 0 end
local placed = 0
for uuid, ticket in string.gmatch(args[2], '([^:,]+):(%d+)') do
  if redis.call('ZSCORE', waiting, uuid) then
    redis.call('ZADD', waiting, 'XX', ticket, uuid)
    redis.call('HSET', entryKey(uuid), 't', ticket)
    placed = placed + 1
  end
end
if placed > 0 then changed('!') end
return placed
`;

/** args: id, the draw's uuids comma-separated. Once: keeps the draw and marks it done. Returns 1 for the call that did it. */
const finishDraw = `${STATE}
local key = eventKey(args[1])
if redis.call('HSETNX', key, 'drawn', '1') == 0 then return 0 end
redis.call('SET', key .. ':order', args[2])
redis.call('DEL', key .. ':frozen')
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
redis.call('DEL', eventKey(args[1]), eventKey(args[1]) .. ':order', eventKey(args[1]) .. ':frozen')
`;

/** The scripts by the name they are defined under on the client. */
export const EVENT_SCRIPTS = {
  waitingRoomEvents: events,
  waitingRoomSaveEvents: saveEvents,
  waitingRoomEventState: eventState,
  waitingRoomStartPrequeue: startPrequeue,
  waitingRoomOpenEvent: openEvent,
  waitingRoomEntrantsOf: entrantsOf,
  waitingRoomPlaceDrawn: placeDrawn,
  waitingRoomFinishDraw: finishDraw,
  waitingRoomClaimAnnouncement: claimAnnouncement,
  waitingRoomCountAfter: countAfter,
  waitingRoomForgetEvent: forgetEvent,
} as const;
