import { ABANDON_BATCH, RECENT_RELEASES } from '../memory';
import { EVENT_SCRIPTS } from './event-scripts';
import { MOVE_INTERVAL_MS } from '../types';

/**
 * The Lua scripts of the Redis queue store. Each store method that changes more than one key
 * is one script, so Redis runs it as one atomic step: two instances can never release the
 * same visitor twice, skip one, or restore a held request twice.
 *
 * Every script gets the same nine keys; ARGV[1] is the key prefix of the per-visitor keys
 * (`<prefix>e:<uuid>` the entry hash, `<prefix>r:<uuid>` the held request), ARGV[2] the
 * call's deadline in Redis time (0: none), and the method's own arguments follow (`args`).
 * Times in the queue are the callers' `now` (ms), never Redis's clock, so the store follows
 * the clock it is given; Redis's clock only guards the deadline.
 */

/** The error a script answers when it reached Redis after its deadline. */
export const DEADLINE_PASSED = 'WRDEADLINE';

/**
 * The keys every script receives, in this order (each after the store's prefix):
 * - meta: hash of t last ticket given, s places served (gone from the head), n released in
 *   all, p paused ('1'), bt and ba the release bucket's tokens and when it was last filled,
 *   la and lr the operator's active limit and releases a minute (absent: the configured ones),
 *   ms and mt the served last told to the pages as a move and when (see Release.moved);
 * - waiting: sorted set of the waiting uuids by ticket, the line: its head is the lowest score,
 *   and a position is a rank (ZRANK, O(log n)) among those still waiting, since places also go
 *   from the middle (visitors who walked away);
 * - seen: sorted set of the same uuids by the time (ms) they were last seen, for the sweep of
 *   those who walked away to find the longest silent first; a waiting place's last-seen is its
 *   score there, which queue_info's polls write alone (see `positions`);
 * - sessions: hash of session id to the uuid of its place (waiting, or released and admitted);
 * - admitted: sorted set of session ids by the time (ms) their admission ends;
 * - released: sorted set of released uuids by release time, to forget them once admission ends;
 * - recent: list of the latest release times, newest first, for the wait estimate;
 * - pending: sorted set of the uuids of places waiting for their bot check, by the time (ms) they
 *   are dropped unless they entered the line before, for the sweep;
 * - addresses: hash of a client address's key to the places (pending or waiting) it holds, for
 *   PLACES_PER_ADDRESS;
 * - log: stream of the line's changes, one entry for each call that changed it (v the line's
 *   version after it, s served after it, c its changes, see \`changed\`), read by every instance's
 *   copy of the line (see line-copy.ts); the last `LOG_LENGTH` or so are kept.
 * meta also keeps cd, the operator's bot-check difficulty (absent: the configured one), and v the
 * line's version: how many entries the log has had.
 */
export const SCRIPT_KEYS = ['meta', 'waiting', 'seen', 'sessions', 'admitted', 'released', 'recent', 'pending', 'addresses', 'log'] as const;

/**
 * Entries the line's log keeps (about: trimmed by whole nodes). An instance's copy that falls
 * further behind reads the whole line again; a few seconds of a busy line's changes are enough.
 */
export const LOG_LENGTH = 10_000;

/** Longest held request kept inside the entry hash, in bytes (Redis's default listpack limit). */
const INLINE_REQUEST_BYTES = 64;

/** Most released entries forgotten by one releaseDue, so one call never blocks Redis for long. */
const FORGET_BATCH = 500;

/**
 * Shared by every script. Entry hash fields: s session id, u user id, t ticket (0 while pending),
 * h held at, l last seen (while the place waits, its score in `seen` is the latest, and `entry`
 * reads it), a released at (present once released), x replayed (present once
 * replayed), p when a pending place is dropped (present while pending), ip the client address's
 * key it counts against (while pending or waiting), q the held request when it is short. A longer request lives apart in its own string key:
 * one value over Redis's listpack limit (64 bytes by default) would turn the small hash's
 * compact encoding into a hashtable four times the size.
 */
const PRELUDE = `
local meta, waiting, seen, sessions, admitted, releasedAt, recent = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local pending, addresses, log = KEYS[8], KEYS[9], KEYS[10]
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

-- This call's changes to the line, logged together once it is done (see publishChanges):
-- '+ticket:uuid' a place entered at the back, '-uuid' a place left it, '!' places were reordered.
local changes = {}
local function changed(change) changes[#changes + 1] = change end
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

-- When a place was last seen: while it waits, its score in seen (the polls write only there).
local function lastSeen(uuid)
  return redis.call('ZSCORE', seen, uuid) or redis.call('HGET', entryKey(uuid), 'l')
end

-- The entry as {uuid, request, field, value, ...}, or false when unknown.
local function entry(uuid)
  local fields = redis.call('HGETALL', entryKey(uuid))
  if #fields == 0 then return false end
  local out = {uuid, false}
  local seenAt = redis.call('ZSCORE', seen, uuid)
  for i = 1, #fields, 2 do
    if fields[i] == 'q' then
      out[2] = fields[i + 1]
    else
      out[#out + 1] = fields[i]
      out[#out + 1] = (fields[i] == 'l' and seenAt) or fields[i + 1]
    end
  end
  if not out[2] then out[2] = redis.call('GET', requestKey(uuid)) or '' end
  return out
end

-- The place no longer counts against its address (it leaves the line, or its bot check).
local function uncount(uuid)
  local address = redis.call('HGET', entryKey(uuid), 'ip')
  if not address then return end
  if redis.call('HINCRBY', addresses, address, -1) <= 0 then redis.call('HDEL', addresses, address) end
  redis.call('HDEL', entryKey(uuid), 'ip')
end

-- A place enters the line at the back: the next ticket, and the sweep's order from now.
local function enter(uuid, now)
  local ticket = redis.call('HINCRBY', meta, 't', 1)
  redis.call('HSET', entryKey(uuid), 't', ticket, 'l', now)
  redis.call('HDEL', entryKey(uuid), 'p')
  redis.call('ZREM', pending, uuid)
  redis.call('ZADD', waiting, ticket, uuid)
  redis.call('ZADD', seen, now, uuid)
  changed('+' .. int(ticket) .. ':' .. uuid)
end

local function forget(uuid)
  local session = redis.call('HGET', entryKey(uuid), 's')
  uncount(uuid)
  redis.call('DEL', entryKey(uuid), requestKey(uuid))
  if redis.call('ZREM', waiting, uuid) == 1 then changed('-' .. uuid) end
  redis.call('ZREM', seen, uuid)
  redis.call('ZREM', releasedAt, uuid)
  redis.call('ZREM', pending, uuid)
  if session and redis.call('HGET', sessions, session) == uuid then
    redis.call('HDEL', sessions, session)
  end
end

-- An admission ends at its score: gone once now reaches it.
local function expireAdmissions(now)
  redis.call('ZREMRANGEBYSCORE', admitted, '-inf', int(now))
end

local function served()
  return tonumber(redis.call('HGET', meta, 's') or '0')
end

-- The visitor's rank among those still waiting, 1 for the head; 0 once released or while pending.
local function positionOf(uuid, released)
  if released then return 0 end
  local rank = redis.call('ZRANK', waiting, uuid)
  return rank and rank + 1 or 0
end

-- Releases from the head of the line; "served" counts every place that leaves it, the silent
-- ones dropped there included. With a seed (an event's random queueing), each release draws
-- uniformly among those waiting instead, and served does not count them: they leave from
-- anywhere. Returns {served after it, the released entries in order}.
local function releaseNext(count, now, sessionMs, abandonMs, seed)
  local out = {}
  local left = 0
  if seed then math.randomseed(seed) end
  while #out < count do
    local head
    if seed then
      local size = redis.call('ZCARD', waiting)
      if size == 0 then break end
      local rank = math.random(size) - 1
      head = redis.call('ZRANGE', waiting, rank, rank)
      redis.call('ZREM', waiting, head[1])
    else
      head = redis.call('ZPOPMIN', waiting)
      if #head == 0 then break end
      left = left + 1
    end
    local uuid = head[1]
    changed('-' .. uuid)
    local last = lastSeen(uuid)
    redis.call('ZREM', seen, uuid)
    local session = redis.call('HGET', entryKey(uuid), 's')
    if session then
      if now - tonumber(last) > abandonMs then
        forget(uuid)
      else
        uncount(uuid)
        -- Out of seen from now on: the entry keeps when it was last seen.
        redis.call('HSET', entryKey(uuid), 'a', int(now), 'l', last)
        redis.call('ZADD', admitted, int(now + sessionMs), session)
        redis.call('ZADD', releasedAt, int(now), uuid)
        redis.call('LPUSH', recent, int(now))
        out[#out + 1] = entry(uuid)
      end
    end
  end
  if left > 0 then redis.call('HINCRBY', meta, 's', left) end
  if #out > 0 then
    redis.call('HINCRBY', meta, 'n', #out)
    redis.call('LTRIM', recent, 0, ${RECENT_RELEASES - 1})
  end
  return {served(), out}
end

-- Logs this call's changes to the line as one entry, and returns the line's version after it.
local function publishChanges()
  if #changes == 0 then return tonumber(redis.call('HGET', meta, 'v') or '0') end
  local version = redis.call('HINCRBY', meta, 'v', 1)
  redis.call('XADD', log, 'MAXLEN', '~', ${LOG_LENGTH}, '*', 'v', version, 's', served(), 'c', table.concat(changes, ','))
  return version
end

-- Whether this step tells the pages the line moved (Release.moved): served grew since the last
-- move told (meta ms), and that was interval ms ago or more (meta mt), whichever instance told it.
local function tellMove(now, interval)
  local s = served()
  local told = redis.call('HMGET', meta, 'ms', 'mt')
  if s <= tonumber(told[1] or '0') or (told[2] and now - tonumber(told[2]) < interval) then return 0 end
  redis.call('HSET', meta, 'ms', int(s), 'mt', int(now))
  return 1
end
`;

/** args: sessionId, now, activeLimit, sessionMs. Returns 1 when admitted. */
const admit = `
local session, now = args[1], tonumber(args[2])
expireAdmissions(now)
if redis.call('ZSCORE', admitted, session) then return 1 end
if redis.call('ZCARD', waiting) > 0 or redis.call('ZCARD', admitted) >= tonumber(args[3]) then return 0 end
redis.call('ZADD', admitted, int(now + tonumber(args[4])), session)
return 1
`;

/**
 * args: sessionId, userId, request, now, newUuid, address key ('' none), places per address (0 no
 * cap), pending until ('' the place enters the line at once). A session that waits, or is
 * pending, keeps its place and gets the new request (a pending one enters the line when no
 * pending time is given, else keeps the later time); otherwise a new place under `newUuid`,
 * pending or taking the next ticket, unless its address holds the most places already: then 0,
 * and nothing changes.
 */
const hold = `
local session, userId, request, now, newUuid = args[1], args[2], args[3], args[4], args[5]
local address, cap, pendingUntil = args[6], tonumber(args[7]), args[8]
local current = redis.call('HGET', sessions, session)
if current then
  local state = redis.call('HMGET', entryKey(current), 't', 'a', 'p')
  if state[1] and not state[2] then
    redis.call('HSET', entryKey(current), 'u', userId, 'l', now)
    if not state[3] then
      redis.call('ZADD', seen, 'XX', now, current)
    elseif pendingUntil == '' then
      enter(current, now)
    elseif tonumber(pendingUntil) > tonumber(state[3]) then
      redis.call('HSET', entryKey(current), 'p', pendingUntil)
      redis.call('ZADD', pending, pendingUntil, current)
    end
    keepRequest(current, request)
    return entry(current)
  end
end
if address ~= '' and cap > 0 and tonumber(redis.call('HGET', addresses, address) or '0') >= cap then return 0 end
if current then forget(current) end
redis.call('HSET', entryKey(newUuid), 's', session, 'u', userId, 't', 0, 'h', now, 'l', now)
keepRequest(newUuid, request)
redis.call('HSET', sessions, session, newUuid)
if address ~= '' then
  redis.call('HSET', entryKey(newUuid), 'ip', address)
  redis.call('HINCRBY', addresses, address, 1)
end
if pendingUntil == '' then
  enter(newUuid, now)
else
  redis.call('HSET', entryKey(newUuid), 'p', pendingUntil)
  redis.call('ZADD', pending, pendingUntil, newUuid)
end
return entry(newUuid)
`;

/**
 * args: uuid, now. A pending place enters the line (the next ticket); any other is left as it is.
 * Returns the place's state after it, or false when unknown.
 */
const enterLine = `
local uuid, now = args[1], args[2]
local state = redis.call('HMGET', entryKey(uuid), 't', 'a', 'p')
if not state[1] then return false end
if state[3] then
  enter(uuid, now)
  return 'waiting'
end
return state[2] and 'released' or 'waiting'
`;

/** args: uuid. Forgets the place when it is pending: returns 1, else 0. */
const dropPending = `
if redis.call('HEXISTS', entryKey(args[1]), 'p') == 0 then return 0 end
forget(args[1])
return 1
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
if not state[2] then redis.call('ZADD', seen, 'XX', now, uuid) end
return {entry(uuid), positionOf(uuid, state[2]), redis.call('LRANGE', recent, 0, -1)}
`;

/**
 * args: uuid, now, uuid, now, … (queue_info's polls that arrived together, see `PositionBatch`).
 * Returns {served, then for each uuid its position and its ticket}: the position is its rank
 * among those waiting, 0 once released, -2 while it waits for its bot check, -1 when unknown. Each visitor is marked as seen at its
 * `now`. A waiting visitor costs three steps: the rank (ZRANK, O(log n), which also says it waits:
 * only waiting places are in the line), its ticket (the line's score, ZSCORE, O(1)) and the
 * last-seen write the sweep reads (ZADD in O(log n)), in `seen` only: writing the entry's hash as
 * well cost about as much again as that ZADD, a third of the script's time a poll. The script's
 * own cost is paid once for the whole batch. Run without a deadline (no TIME): a mark of seen that
 * arrives late is harmless.
 */
const positions = `
local out = {served()}
for i = 1, #args, 2 do
  local uuid, now = args[i], args[i + 1]
  local rank = redis.call('ZRANK', waiting, uuid)
  if rank then
    redis.call('ZADD', seen, 'XX', now, uuid)
    out[#out + 1] = rank + 1
    out[#out + 1] = tonumber(redis.call('ZSCORE', waiting, uuid))
  else
    local state = redis.call('HMGET', entryKey(uuid), 't', 'a', 'p')
    if state[2] then
      redis.call('HSET', entryKey(uuid), 'l', now)
      out[#out + 1] = 0
      out[#out + 1] = tonumber(state[1])
    elseif state[3] then
      redis.call('HSET', entryKey(uuid), 'l', now)
      out[#out + 1] = -2
      out[#out + 1] = tonumber(state[1]) or 0
    else
      out[#out + 1] = -1
      out[#out + 1] = 0
    end
  end
end
return out
`;

/**
 * No args. The whole line for an instance's copy of it (line-copy.ts), read in one step with the
 * log's place: {version, served, the log's last entry id ('0-0' when empty), uuid, ticket, …}.
 */
const lineSnapshot = `
local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
local out = {tonumber(redis.call('HGET', meta, 'v') or '0'), served(), last[1] and last[1][1] or '0-0'}
local line = redis.call('ZRANGE', waiting, 0, -1, 'WITHSCORES')
for i = 1, #line do out[#out + 1] = line[i] end
return out
`;

/**
 * args: now, uuid, now, uuid, …: polls answered from an instance's copy of the line, marked seen
 * late and together (see seen-marks.ts). XX: only places still waiting; GT: never back in time,
 * whichever instance marked them since.
 */
const markSeen = `
for i = 1, #args, 400 do
  redis.call('ZADD', seen, 'XX', 'GT', unpack(args, i, math.min(i + 399, #args)))
end
return #args / 2
`;

/** No args. Returns {served, recent release times}, read together (see RecentReleases). */
const recentReleases = `
return {served(), redis.call('LRANGE', recent, 0, -1)}
`;

/** args: uuid, now. Returns 1 when the uuid is known. Only waiting places are in "seen": XX. */
const touch = `
local uuid, now = args[1], args[2]
if redis.call('EXISTS', entryKey(uuid)) == 0 then return 0 end
redis.call('HSET', entryKey(uuid), 'l', now)
redis.call('ZADD', seen, 'XX', now, uuid)
return 1
`;

/** args: count, now, sessionMs, abandonMs, random seed ('' to take the head). Returns {served, the released entries in order, 1 when it tells the pages the line moved: whenever served grew}. */
const release = `
local now = tonumber(args[2])
local release = releaseNext(tonumber(args[1]), now, tonumber(args[3]), tonumber(args[4]), tonumber(args[5]))
release[3] = tellMove(now, 0)
return release
`;

/**
 * args: now, activeLimit, sessionMs, perMinute, abandonMs, random seed ('' to take the head). Ends admissions, forgets
 * released visitors whose admission ended, then releases what the pause, the active limit
 * and the token bucket allow. The bucket starts with one second's worth (at least one token),
 * refills at perMinute and holds at most one second's worth and one token more (\`bucketCapacity\` in memory.ts), so a paused or idle line cannot save
 * up a burst, and the fraction a second leaves over is carried, not lost to the cap.
 * Returns {served, the released entries in order, 1 when it is the step to tell the pages the line moved}.
 */
const releaseDue = `
local now, activeLimit, sessionMs = tonumber(args[1]), tonumber(args[2]), tonumber(args[3])
local perMinute, abandonMs = tonumber(args[4]), tonumber(args[5])
expireAdmissions(now)
local ended = redis.call('ZRANGEBYSCORE', releasedAt, '-inf', int(now - sessionMs), 'LIMIT', 0, ${FORGET_BATCH})
for _, uuid in ipairs(ended) do forget(uuid) end
if redis.call('HGET', meta, 'p') == '1' or perMinute <= 0 then return {served(), {}, tellMove(now, ${MOVE_INTERVAL_MS})} end
local capacity = perMinute / 60 + 1
local bucket = redis.call('HMGET', meta, 'bt', 'ba')
local tokens = math.max(1, perMinute / 60)
if bucket[1] then tokens = tonumber(bucket[1]) + (now - tonumber(bucket[2])) * perMinute / 60000 end
tokens = math.min(capacity, tokens)
-- The tolerance absorbs the rounding of many small refills (ten of 0.1 make 0.999…).
local count = math.min(math.floor(tokens + 1e-9), activeLimit - redis.call('ZCARD', admitted))
local release = {served(), {}}
if count > 0 then release = releaseNext(count, now, sessionMs, abandonMs, tonumber(args[6])) end
redis.call('HSET', meta, 'bt', string.format('%.17g', tokens - #release[2]), 'ba', int(now))
release[3] = tellMove(now, ${MOVE_INTERVAL_MS})
return release
`;

/**
 * args: now, abandonMs. The sweep of those who walked away: drops the waiting places last seen
 * more than abandonMs before now, the longest silent first, at most ${ABANDON_BATCH} so that one
 * call never blocks Redis for long. Returns how many it dropped.
 */
const dropAbandoned = `
local now, abandonMs = tonumber(args[1]), tonumber(args[2])
local silent = redis.call('ZRANGEBYSCORE', seen, '-inf', '(' .. int(now - abandonMs), 'LIMIT', 0, ${ABANDON_BATCH})
for _, uuid in ipairs(silent) do forget(uuid) end
local expired = redis.call('ZRANGEBYSCORE', pending, '-inf', int(now), 'LIMIT', 0, ${ABANDON_BATCH})
for _, uuid in ipairs(expired) do forget(uuid) end
return #silent
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
 * A place `to` had is forgotten, and so leaves the line.
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

/** args: now. Returns {waiting, active, released, paused, arrived, pending}. */
const stats = `
expireAdmissions(tonumber(args[1]))
local counters = redis.call('HMGET', meta, 'n', 'p', 't')
return {redis.call('ZCARD', waiting), redis.call('ZCARD', admitted), tonumber(counters[1] or '0'), counters[2] == '1' and 1 or 0, tonumber(counters[3] or '0'), redis.call('ZCARD', pending)}
`;

/** No args. Returns the operator's bot-check difficulty, or false when not set. */
const challengeDifficulty = `
return redis.call('HGET', meta, 'cd')
`;

/** args: the difficulty, or '' to clear it. Returns what \`challengeDifficulty\` returns, after the change. */
const setChallengeDifficulty = `
if args[1] == '' then redis.call('HDEL', meta, 'cd') else redis.call('HSET', meta, 'cd', args[1]) end
return redis.call('HGET', meta, 'cd')
`;

/** No args. Returns {active limit, releases a minute}, each false when not set. */
const limits = `
return redis.call('HMGET', meta, 'la', 'lr')
`;

/**
 * args: active limit, releases a minute: a number sets it, '-' clears it, '' leaves it.
 * Returns what \`limits\` returns, after the change.
 */
const setLimits = `
for i, field in ipairs({'la', 'lr'}) do
  if args[i] == '-' then redis.call('HDEL', meta, field)
  elseif args[i] ~= '' then redis.call('HSET', meta, field, args[i]) end
end
return redis.call('HMGET', meta, 'la', 'lr')
`;

/** args: paused ('1' or '0'). */
const setPaused = `
redis.call('HSET', meta, 'p', args[1])
`;

/**
 * Run once by each store before its first call: the version before kept the line as a list
 * (\`<prefix>line\`, uuids in ticket order). Its waiting places move into the sorted sets, so
 * that upgrading loses no place. KEYS: the old list, waiting, seen; ARGV: the prefix. Every
 * instance of a room must run the same version: an old one would go on writing the list.
 */
export const UPGRADE_LIST_LINE = `
local line, waiting, seen, prefix = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
if redis.call('EXISTS', line) == 0 then return 0 end
local uuids = redis.call('LRANGE', line, 0, -1)
for _, uuid in ipairs(uuids) do
  local fields = redis.call('HMGET', prefix .. 'e:' .. uuid, 't', 'l', 'a')
  if fields[1] and not fields[3] then
    redis.call('ZADD', waiting, fields[1], uuid)
    redis.call('ZADD', seen, fields[2], uuid)
  end
end
redis.call('DEL', line)
return #uuids
`;

/** The scripts by the name they are defined under on the client. */
export const SCRIPTS = {
  waitingRoomAdmit: admit,
  waitingRoomHold: hold,
  waitingRoomEnterLine: enterLine,
  waitingRoomDropPending: dropPending,
  waitingRoomGet: get,
  waitingRoomPlaceInLine: placeInLine,
  waitingRoomPositions: positions,
  waitingRoomLineSnapshot: lineSnapshot,
  waitingRoomMarkSeen: markSeen,
  waitingRoomRecentReleases: recentReleases,
  waitingRoomTouch: touch,
  waitingRoomRelease: release,
  waitingRoomReleaseDue: releaseDue,
  waitingRoomDropAbandoned: dropAbandoned,
  waitingRoomTakeHeld: takeHeld,
  waitingRoomMoveSession: moveSession,
  waitingRoomStats: stats,
  waitingRoomSetPaused: setPaused,
  waitingRoomLimits: limits,
  waitingRoomSetLimits: setLimits,
  ...EVENT_SCRIPTS,
  waitingRoomChallengeDifficulty: challengeDifficulty,
  waitingRoomSetChallengeDifficulty: setChallengeDifficulty,
} as const;

export type ScriptName = keyof typeof SCRIPTS;

/**
 * The full source of a script: the shared functions, then its body, run as a function so that
 * whatever it changed in the line is logged once it returns, wherever it returns. Every script
 * answers {the line's version after it, its own answer}; an error is answered as it is.
 */
export function scriptSource(name: ScriptName): string {
  return `${PRELUDE}
local function body()
${SCRIPTS[name]}
end
local answer = body()
local version = publishChanges()
if type(answer) == 'table' and answer.err then return answer end
return {version, answer}
`;
}
