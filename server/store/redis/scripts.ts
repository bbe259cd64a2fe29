import { RECENT_RELEASES } from '../memory';

/**
 * The Lua scripts of the Redis queue store. Each store method that changes more than one key
 * is one script, so Redis runs it as one atomic step: two instances can never release the
 * same visitor twice, skip one, or restore a held request twice.
 *
 * Every script gets the same six keys; ARGV[1] is the key prefix of the per-visitor keys
 * (`<prefix>e:<uuid>` the entry hash, `<prefix>r:<uuid>` the held request), ARGV[2] the
 * call's deadline in Redis time (0: none), and the method's own arguments follow (`args`).
 * Times in the queue are the callers' `now` (ms), never Redis's clock, so the store follows
 * the clock it is given; Redis's clock only guards the deadline.
 */

/** The error a script answers when it reached Redis after its deadline. */
export const DEADLINE_PASSED = 'WRDEADLINE';

/**
 * The keys every script receives, in this order (each after the store's prefix):
 * - meta: hash of t last ticket given, s tickets served (gone from the head), n released in
 *   all, p paused ('1'), bt and ba the release bucket's tokens and when it was last filled;
 * - line: list of the waiting uuids in ticket order, its head first;
 * - sessions: hash of session id to the uuid of its place (waiting, or released and admitted);
 * - admitted: sorted set of session ids by the time (ms) their admission ends;
 * - released: sorted set of released uuids by release time, to forget them once admission ends;
 * - recent: list of the latest release times, newest first, for the wait estimate.
 */
export const SCRIPT_KEYS = ['meta', 'line', 'sessions', 'admitted', 'released', 'recent'] as const;

/** Longest held request kept inside the entry hash, in bytes (Redis's default listpack limit). */
const INLINE_REQUEST_BYTES = 64;

/** Most released entries forgotten by one releaseDue, so one call never blocks Redis for long. */
const FORGET_BATCH = 500;

/**
 * Shared by every script. Entry hash fields: s session id, u user id, t ticket, h held at,
 * l last seen, a released at (present once released), x replayed (present once replayed),
 * q the held request when it is short. A longer request lives apart in its own string key:
 * one value over Redis's listpack limit (64 bytes by default) would turn the small hash's
 * compact encoding into a hashtable four times the size.
 */
const PRELUDE = `
local meta, line, sessions, admitted, releasedAt, recent = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local prefix, deadline = ARGV[1], tonumber(ARGV[2])
local args = {unpack(ARGV, 3)}

-- A call its sender has already given up on (see deadline.ts) must not take effect later.
if deadline > 0 then
  local time = redis.call('TIME')
  if tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000) > deadline then
    return redis.error_reply('${DEADLINE_PASSED} the call reached Redis after its deadline and was not run')
  end
end

local function entryKey(uuid) return prefix .. 'e:' .. uuid end
local function requestKey(uuid) return prefix .. 'r:' .. uuid end

-- Integers of up to 2^53 printed in full, never in exponent form.
local function int(n) return string.format('%.0f', n) end

local function keepRequest(uuid, request)
  if #request <= ${INLINE_REQUEST_BYTES} then
    redis.call('HSET', entryKey(uuid), 'q', request)
    redis.call('DEL', requestKey(uuid))
  else
    redis.call('SET', requestKey(uuid), request)
    redis.call('HDEL', entryKey(uuid), 'q')
  end
end

local function requestOf(uuid)
  return redis.call('HGET', entryKey(uuid), 'q') or redis.call('GET', requestKey(uuid)) or ''
end

-- The entry as {uuid, request, field, value, ...}, or false when unknown.
local function entry(uuid)
  local fields = redis.call('HGETALL', entryKey(uuid))
  if #fields == 0 then return false end
  local out = {uuid, false}
  for i = 1, #fields, 2 do
    if fields[i] == 'q' then
      out[2] = fields[i + 1]
    else
      out[#out + 1] = fields[i]
      out[#out + 1] = fields[i + 1]
    end
  end
  if not out[2] then out[2] = redis.call('GET', requestKey(uuid)) or '' end
  return out
end

local function forget(uuid)
  local session = redis.call('HGET', entryKey(uuid), 's')
  redis.call('DEL', entryKey(uuid), requestKey(uuid))
  redis.call('ZREM', releasedAt, uuid)
  if session and redis.call('HGET', sessions, session) == uuid then
    redis.call('HDEL', sessions, session)
  end
end

-- An admission ends at its score: gone once now reaches it.
local function expireAdmissions(now)
  redis.call('ZREMRANGEBYSCORE', admitted, '-inf', int(now))
end

-- Visitors leave the line only at its head, so "served" (tickets that left the head) turns a
-- ticket into a position in constant time: ticket - served.
local function releaseNext(count, now, sessionMs, abandonMs)
  local out = {}
  local served = 0
  while #out < count do
    local uuid = redis.call('LPOP', line)
    if not uuid then break end
    served = served + 1
    local fields = redis.call('HMGET', entryKey(uuid), 's', 'l')
    if fields[1] then
      if now - tonumber(fields[2]) > abandonMs then
        forget(uuid)
      else
        redis.call('HSET', entryKey(uuid), 'a', int(now))
        redis.call('ZADD', admitted, int(now + sessionMs), fields[1])
        redis.call('ZADD', releasedAt, int(now), uuid)
        redis.call('LPUSH', recent, int(now))
        out[#out + 1] = entry(uuid)
      end
    end
  end
  if served > 0 then redis.call('HINCRBY', meta, 's', served) end
  if #out > 0 then
    redis.call('HINCRBY', meta, 'n', #out)
    redis.call('LTRIM', recent, 0, ${RECENT_RELEASES - 1})
  end
  return out
end
`;

/** args: sessionId, now, activeLimit, sessionMs. Returns 1 when admitted. */
const admit = `
local session, now = args[1], tonumber(args[2])
expireAdmissions(now)
if redis.call('ZSCORE', admitted, session) then return 1 end
if redis.call('LLEN', line) > 0 or redis.call('ZCARD', admitted) >= tonumber(args[3]) then return 0 end
redis.call('ZADD', admitted, int(now + tonumber(args[4])), session)
return 1
`;

/**
 * args: sessionId, userId, request, now, newUuid. A session that waits keeps its
 * place and gets the new request; otherwise it takes the next ticket under `newUuid`.
 */
const hold = `
local session, userId, request, now, newUuid = args[1], args[2], args[3], args[4], args[5]
local current = redis.call('HGET', sessions, session)
if current then
  local state = redis.call('HMGET', entryKey(current), 't', 'a')
  if state[1] and not state[2] then
    redis.call('HSET', entryKey(current), 'u', userId, 'l', now)
    keepRequest(current, request)
    return entry(current)
  end
  forget(current)
end
local ticket = redis.call('HINCRBY', meta, 't', 1)
redis.call('HSET', entryKey(newUuid), 's', session, 'u', userId, 't', ticket, 'h', now, 'l', now)
keepRequest(newUuid, request)
redis.call('HSET', sessions, session, newUuid)
redis.call('RPUSH', line, newUuid)
return entry(newUuid)
`;

/** args: uuid. Returns the entry or false. */
const get = `
return entry(args[1])
`;

/** args: uuid, now. Returns {entry, position, recent release times} or false. */
const placeInLine = `
local uuid, now = args[1], args[2]
local state = redis.call('HMGET', entryKey(uuid), 't', 'a')
if not state[1] then return false end
redis.call('HSET', entryKey(uuid), 'l', now)
local position = 0
if not state[2] then
  position = tonumber(state[1]) - tonumber(redis.call('HGET', meta, 's') or '0')
end
return {entry(uuid), position, redis.call('LRANGE', recent, 0, -1)}
`;

/**
 * args: uuid, now. Returns {position, ticket, served} or false: queue_info's every poll, so it
 * sends back three integers, not the entry and the release times.
 */
const position = `
local uuid, now = args[1], args[2]
local state = redis.call('HMGET', entryKey(uuid), 't', 'a')
if not state[1] then return false end
redis.call('HSET', entryKey(uuid), 'l', now)
local ticket = tonumber(state[1])
local served = tonumber(redis.call('HGET', meta, 's') or '0')
local position = 0
if not state[2] then position = ticket - served end
return {position, ticket, served}
`;

/** No args. Returns {served, recent release times}, read together (see RecentReleases). */
const recentReleases = `
return {tonumber(redis.call('HGET', meta, 's') or '0'), redis.call('LRANGE', recent, 0, -1)}
`;

/** args: uuid, now. Returns 1 when the uuid is known. */
const touch = `
local uuid, now = args[1], args[2]
if redis.call('EXISTS', entryKey(uuid)) == 0 then return 0 end
redis.call('HSET', entryKey(uuid), 'l', now)
return 1
`;

/** args: count, now, sessionMs, abandonMs. Returns the released entries in order. */
const release = `
return releaseNext(tonumber(args[1]), tonumber(args[2]), tonumber(args[3]), tonumber(args[4]))
`;

/**
 * args: now, activeLimit, sessionMs, perMinute, abandonMs. Ends admissions, forgets
 * released visitors whose admission ended, then releases what the pause, the active limit
 * and the token bucket allow. The bucket refills at perMinute and holds at most one second's
 * worth (at least one token), so a paused or idle line cannot save up a burst.
 */
const releaseDue = `
local now, activeLimit, sessionMs = tonumber(args[1]), tonumber(args[2]), tonumber(args[3])
local perMinute, abandonMs = tonumber(args[4]), tonumber(args[5])
expireAdmissions(now)
local ended = redis.call('ZRANGEBYSCORE', releasedAt, '-inf', int(now - sessionMs), 'LIMIT', 0, ${FORGET_BATCH})
for _, uuid in ipairs(ended) do forget(uuid) end
if redis.call('HGET', meta, 'p') == '1' or perMinute <= 0 then return {} end
local capacity = math.max(1, perMinute / 60)
local bucket = redis.call('HMGET', meta, 'bt', 'ba')
local tokens = capacity
if bucket[1] then tokens = tonumber(bucket[1]) + (now - tonumber(bucket[2])) * perMinute / 60000 end
tokens = math.min(capacity, tokens)
-- The tolerance absorbs the rounding of many small refills (ten of 0.1 make 0.999…).
local count = math.min(math.floor(tokens + 1e-9), activeLimit - redis.call('ZCARD', admitted))
local out = {}
if count > 0 then out = releaseNext(count, now, sessionMs, abandonMs) end
redis.call('HSET', meta, 'bt', string.format('%.17g', tokens - #out), 'ba', int(now))
return out
`;

/** args: uuid, sessionId. Returns the held request the first time only, else false. */
const takeHeld = `
local uuid, session = args[1], args[2]
local state = redis.call('HMGET', entryKey(uuid), 's', 'a', 'x')
if state[1] ~= session or not state[2] or state[3] then return false end
redis.call('HSET', entryKey(uuid), 'x', '1')
return requestOf(uuid)
`;

/**
 * args: from, to, userId. Moves the session's place (its uuid stays, so the line, the
 * released set and the held request are untouched) and its admission (same end) to `to`.
 */
const moveSession = `
local from, to, userId = args[1], args[2], args[3]
local uuid = redis.call('HGET', sessions, from)
if uuid and redis.call('EXISTS', entryKey(uuid)) == 0 then
  redis.call('HDEL', sessions, from)
  uuid = false
end
local ends = redis.call('ZSCORE', admitted, from)
if not uuid and not ends then return 0 end
if to ~= from then
  local replaced = redis.call('HGET', sessions, to)
  if replaced then forget(replaced) end
  redis.call('HDEL', sessions, to)
  redis.call('ZREM', admitted, to)
end
redis.call('HDEL', sessions, from)
redis.call('ZREM', admitted, from)
if uuid then
  redis.call('HSET', entryKey(uuid), 's', to, 'u', userId)
  redis.call('HSET', sessions, to, uuid)
end
if ends then redis.call('ZADD', admitted, ends, to) end
return 1
`;

/** args: now. Returns {waiting, active, released, paused}. */
const stats = `
expireAdmissions(tonumber(args[1]))
local counters = redis.call('HMGET', meta, 'n', 'p')
return {redis.call('LLEN', line), redis.call('ZCARD', admitted), tonumber(counters[1] or '0'), counters[2] == '1' and 1 or 0}
`;

/** args: paused ('1' or '0'). */
const setPaused = `
redis.call('HSET', meta, 'p', args[1])
`;

/** The scripts by the name they are defined under on the client. */
export const SCRIPTS = {
  waitingRoomAdmit: admit,
  waitingRoomHold: hold,
  waitingRoomGet: get,
  waitingRoomPlaceInLine: placeInLine,
  waitingRoomPosition: position,
  waitingRoomRecentReleases: recentReleases,
  waitingRoomTouch: touch,
  waitingRoomRelease: release,
  waitingRoomReleaseDue: releaseDue,
  waitingRoomTakeHeld: takeHeld,
  waitingRoomMoveSession: moveSession,
  waitingRoomStats: stats,
  waitingRoomSetPaused: setPaused,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/** The full source of a script: the shared functions, then its body. */
export function scriptSource(name: ScriptName): string {
  return PRELUDE + SCRIPTS[name];
}
