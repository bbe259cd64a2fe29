-- Shared by every script of the queue store, before its own body (see commands.ts for the keys,
-- and for the constants in capitals, which the store defines above this).
--
-- Entry hash fields: s session id, u user id, t ticket (0 while pending; while the place waits,
-- its score in `waiting` is the truth, which the draw's keying moves without writing here, and `entry`
-- reads it; a release writes it back), h held at, l last seen
-- (while the place waits, its score in `seen` is the latest, and `entry` reads it), a released at
-- (present once released), x replayed (present once replayed), p when a pending place is dropped
-- (present while pending), ip the client address's key it counts against (while pending or
-- waiting), q the held request when it is short. A longer request lives apart in its own string
-- key: one value over Redis's listpack limit (64 bytes by default) would turn the small hash's
-- compact encoding into a hashtable four times the size.
local meta, waiting, seen, sessions, admitted, releasedAt, recent = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local pending, addresses, log = KEYS[8], KEYS[9], KEYS[10]
local prefix, deadline = ARGV[1], tonumber(ARGV[2])
local args = {unpack(ARGV, 3)}

-- Redis's clock, in ms, read once a call: the deadline's check and the arrivals' log share it.
local clockAt
local function clock()
  if not clockAt then
    local time = redis.call('TIME')
    clockAt = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
  end
  return clockAt
end

-- A call its sender has already given up on (see deadline.ts) must not take effect later.
if deadline > 0 then
  if clock() > deadline then
    return redis.error_reply(DEADLINE_PASSED .. ' the call reached Redis after its deadline and was not run')
  end
end

local function entryKey(uuid) return prefix .. 'e:' .. uuid end

-- This call's changes to the line, logged together once it is done (see publishChanges):
-- '+ticket:uuid' a place entered at the back, '-uuid' a place left it, '^ticket:uuid' a place moved
-- ahead with a priority code to that ticket (behind the code holders before it), '!' places were
-- reordered, '~old:new' a place kept its ticket under a new uuid (take-handoff.lua), '>ticket:uuid'
-- a place moved to a ticket nobody holds (an entrant keyed to its draw slot, add-draw-keys.lua).
local changes = {}
-- This call's changes other than arrivals ('+'), which alone may wait to be logged (publishChanges).
local others = 0
local function changed(change)
  changes[#changes + 1] = change
  if string.byte(change) ~= 43 then others = others + 1 end
end
-- Arrivals not logged yet, in order (see publishChanges): their changes in `<prefix>wa`, and in meta
-- wa how many, ws since when (ms, Redis's clock).
local arrivalsLog = prefix .. 'wa'
-- 1 when arrivals wait to be logged after this call: the command answers it beside the line's
-- version, so that its instance asks for them to be logged once due (`RedisStore`).
local arrivalsWait = 0
-- The places this call released, logged beside its changes (field r): a copy of the line that saw
-- them released can have a release a failover lost given again (line-copy.ts, releaseAgain).
local releases = {}
local function requestKey(uuid) return prefix .. 'r:' .. uuid end

-- Integers of up to 2^53 printed in full, never in exponent form.
local function int(n) return string.format('%.0f', n) end

-- A shuffled pre-queue's draw slots: the tickets in (after, drawBase(after)]; its arrivals come
-- after them (see DRAW_SLOTS in commands.ts).
local function drawBase(after) return after + DRAW_SLOTS end

-- A long request is kept in its own key; a short one is answered, for the entry's field q.
local function keepLongRequest(uuid, request)
  if #request <= INLINE_REQUEST_BYTES then return request end
  redis.call('SET', requestKey(uuid), request)
  return nil
end

local function keepRequest(uuid, request)
  local short = keepLongRequest(uuid, request)
  if short then
    redis.call('HSET', entryKey(uuid), 'q', short)
    redis.call('DEL', requestKey(uuid))
  else
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
  local ticketAt, settled
  for i = 1, #fields, 2 do
    if fields[i] == 'q' then
      out[2] = fields[i + 1]
    else
      out[#out + 1] = fields[i]
      out[#out + 1] = (fields[i] == 'l' and seenAt) or fields[i + 1]
      if fields[i] == 't' then ticketAt = #out end
      if fields[i] == 'a' or fields[i] == 'p' then settled = true end
    end
  end
  if ticketAt and not settled then out[ticketAt] = redis.call('ZSCORE', waiting, uuid) or out[ticketAt] end
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

-- Tickets this call took (takeTicket), and the line's size as this call left it (lineSize): read
-- once, then counted as places enter and leave through takeTicket and forget. Only the steps of
-- admit.lua and arrive.lua use it, which change the line through nothing else: a batch of
-- arrivals reads the line's size once, and a new place's position, the back of the line, is that
-- size, without a rank each.
local ticketsTaken, sizeRead, sizeChanges = 0, nil, 0
local function lineSize()
  if not sizeRead then sizeRead = redis.call('ZCARD', waiting) - sizeChanges end
  return sizeRead + sizeChanges
end

-- The next ticket at the back of the line. A part of a room split across shards names itself at
-- the end of its prefix, `~<part>/<parts>` (parts.ts): its tickets then come from its Redis's
-- clock, TICKETS_PER_MS a millisecond, each part's a step of the parts apart, so that the parts'
-- tickets are one order by arrival without a counter every arrival would share. The tickets none
-- takes count as skipped (meta sk): the arrivals are still t - sk (stats.lua).
-- The part and the parts, read from the prefix at a call's first ticket: false when it names none.
local ticketPart
local function nextTicket()
  if ticketPart == nil then
    local part, parts = string.match(prefix, '~(%d+)/(%d+)[.%d]*}?:$')
    ticketPart = part ~= nil and parts ~= '1' and {tonumber(part), tonumber(parts)}
  end
  if not ticketPart then return redis.call('HINCRBY', meta, 't', 1) end
  local part, parts = ticketPart[1], ticketPart[2]
  local given = redis.call('HGET', meta, 't')
  local last = given and tonumber(given) or part + 1 - parts
  local ticket = math.max(last + parts, (clock() - TICKET_EPOCH_MS) * TICKETS_PER_MS * parts + part + 1)
  redis.call('HSET', meta, 't', int(ticket))
  local skipped = ticket - math.max(last, 0) - 1
  if skipped > 0 then redis.call('HINCRBY', meta, 'sk', int(skipped)) end
  return ticket
end

-- The place takes the next ticket at the back of the line, and the sweep's order from now;
-- answers the ticket. Its entry's fields are the caller's to write.
local function takeTicket(uuid, now)
  local ticket = int(nextTicket())
  redis.call('ZADD', waiting, ticket, uuid)
  redis.call('ZADD', seen, now, uuid)
  changed('+' .. ticket .. ':' .. uuid)
  ticketsTaken = ticketsTaken + 1
  sizeChanges = sizeChanges + 1
  return ticket
end

-- A pending place enters the line at the back.
local function enter(uuid, now)
  redis.call('HSET', entryKey(uuid), 't', takeTicket(uuid, now), 'l', now)
  redis.call('HDEL', entryKey(uuid), 'p')
  redis.call('ZREM', pending, uuid)
end

local function forget(uuid)
  local session = redis.call('HGET', entryKey(uuid), 's')
  uncount(uuid)
  redis.call('DEL', entryKey(uuid), requestKey(uuid))
  if redis.call('ZREM', waiting, uuid) == 1 then
    changed('-' .. uuid)
    sizeChanges = sizeChanges - 1
  end
  redis.call('ZREM', seen, uuid)
  redis.call('ZREM', releasedAt, uuid)
  redis.call('ZREM', pending, uuid)
  if session and redis.call('HGET', sessions, session) == uuid then
    redis.call('HDEL', sessions, session)
  end
end

-- The revocation feed (see commands.ts): the revoked sessions by sequence number, and each one's
-- revoked admission's end (s). Named from the prefix, as the entries are.
local revokedLog, revokedEnds = prefix .. 'rv', prefix .. 'rx'

-- When an admission of the session starting now ends: sessionMs later, and at least a second
-- after its revoked admission, whose passes would otherwise be this one's too.
local function admissionEnd(session, now, sessionMs)
  local revoked = redis.call('HGET', revokedEnds, session)
  local ends = now + sessionMs
  if revoked then ends = math.max(ends, (tonumber(revoked) + 1) * 1000) end
  return ends
end

-- Forgets, from the oldest, a bounded batch of the revocations whose admissions have ended.
local function forgetRevocations(now)
  local oldest = redis.call('ZRANGE', revokedLog, 0, 99)
  for _, session in ipairs(oldest) do
    local ends = redis.call('HGET', revokedEnds, session)
    if ends and tonumber(ends) * 1000 > now then return end
    redis.call('ZREM', revokedLog, session)
    redis.call('HDEL', revokedEnds, session)
  end
end

-- An admission ends at its score: gone once now reaches it. Once a call for each time (a batch of
-- arrivals shares one): none has ended since.
local expiredUpTo
local function expireAdmissions(now)
  if expiredUpTo and now <= expiredUpTo then return end
  redis.call('ZREMRANGEBYSCORE', admitted, '-inf', int(now))
  expiredUpTo = now
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

-- Whether the session's place may take a priority code (use-code.lua, parted-code-place.lua): its
-- uuid, and nil, or the outcome that says why not: 0 no place, 1 not waiting, 2 ahead already (by
-- an earlier code), 3 too many wrong codes from it (perPlace).
local function codeTaker(session, perPlace)
  local uuid = redis.call('HGET', sessions, session)
  if not uuid then return nil, 0 end
  local state = redis.call('HMGET', entryKey(uuid), 't', 'a', 'p', 'cg')
  if not state[1] then return nil, 0 end
  if state[2] or state[3] then return uuid, 1 end
  if tonumber(state[1]) < 0 then return uuid, 2 end
  if tonumber(state[4] or '0') >= perPlace then return uuid, 3 end
  return uuid, nil
end

-- While event `id`'s draw is being placed (see place-drawn.lua), the last ticket a release may
-- reach: its placed mark, behind which wait entrants not yet placed. Nil once drawn, or for ''.
local function drawnUpTo(id)
  if id == nil or id == '' then return nil end
  local state = redis.call('HMGET', prefix .. 'ev:' .. id, 'drawn', 'pc', 'after')
  if state[1] then return nil end
  return tonumber(state[2] or state[3] or '0')
end

-- A place out of the line, released: out of seen from now on, its entry keeps when it was last
-- seen and its ticket, and its session is admitted. Returns its entry.
local function admitReleased(uuid, ticket, last, session, now, sessionMs)
  uncount(uuid)
  redis.call('HSET', entryKey(uuid), 'a', int(now), 'l', last, 't', ticket)
  redis.call('ZADD', admitted, int(admissionEnd(session, now, sessionMs)), session)
  redis.call('ZADD', releasedAt, int(now), uuid)
  redis.call('LPUSH', recent, int(now))
  releases[#releases + 1] = uuid
  return entry(uuid)
end

local function countReleases(count)
  if count == 0 then return end
  redis.call('HINCRBY', meta, 'n', count)
  redis.call('LTRIM', recent, 0, RECENT_RELEASES - 1)
end

-- Releases from the head of the line; "served" counts every place that leaves it, the silent
-- ones dropped there included. With a seed (an event's random queueing), each release draws
-- uniformly among those waiting instead, and served does not count them: they leave from
-- anywhere. With a limit (`drawnUpTo`), only places with a ticket up to it leave. Returns
-- {served after it, the released entries in order}.
local function releaseNext(count, now, sessionMs, abandonMs, seed, limit)
  local out = {}
  local left = 0
  if seed then math.randomseed(seed) end
  while #out < count do
    local head
    -- A draw is among those without a code: the code holders leave first, from the head.
    if seed and redis.call('ZCOUNT', waiting, '-inf', '(0') == 0 then
      local size = limit and redis.call('ZCOUNT', waiting, '-inf', int(limit)) or redis.call('ZCARD', waiting)
      if size == 0 then break end
      local rank = math.random(size) - 1
      head = redis.call('ZRANGE', waiting, rank, rank, 'WITHSCORES')
      redis.call('ZREM', waiting, head[1])
    else
      if limit then
        local first = redis.call('ZRANGE', waiting, 0, 0, 'WITHSCORES')
        if #first == 0 or tonumber(first[2]) > limit then break end
      end
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
        out[#out + 1] = admitReleased(uuid, head[2], last, session, now, sessionMs)
      end
    end
  end
  if left > 0 then redis.call('HINCRBY', meta, 's', left) end
  countReleases(#out)
  return {served(), out}
end

-- Releases again, ahead of anyone, the places a failover brought back waiting after their release
-- (the copies of the line saw them released: line-copy.ts), those still waiting: each may have been
-- told, and its admission was lost with the release. Served counts one that leaves the head, as
-- its first release did. Returns their entries.
local function releaseAgain(uuids, now, sessionMs)
  local out = {}
  for _, uuid in ipairs(uuids) do
    local ticket = redis.call('ZSCORE', waiting, uuid)
    local session = redis.call('HGET', entryKey(uuid), 's')
    if ticket and session then
      if tonumber(ticket) > 0 and redis.call('ZRANK', waiting, uuid) == 0 then redis.call('HINCRBY', meta, 's', 1) end
      redis.call('ZREM', waiting, uuid)
      changed('-' .. uuid)
      local last = lastSeen(uuid)
      redis.call('ZREM', seen, uuid)
      out[#out + 1] = admitReleased(uuid, ticket, last, session, now, sessionMs)
    end
  end
  countReleases(#out)
  return out
end

-- Logs this call's changes to the line as one entry, and returns the line's version after it.
-- Arrivals wait to be logged together: each entry costs every instance's copy of the line a read
-- of its own (line-copy.ts), so that an entry each was the arrivals a second times the instances.
-- A call that only took tickets at the back leaves its changes waiting, until ARRIVALS_LOGGED wait
-- or the first has waited ARRIVALS_LOGGED_MS; any other change logs them first, in order, with
-- its own. A copy meanwhile leaves those places to Redis, as any place it does not hold.
local function publishChanges()
  local state = redis.call('HMGET', meta, 'v', 'wa', 'ws')
  local version, waited = tonumber(state[1] or '0'), tonumber(state[2] or '0')
  if #changes == 0 and waited == 0 then return version end
  if others == 0 then
    local now = clock()
    local since = waited > 0 and tonumber(state[3]) or now
    local count = waited + #changes
    -- A clock gone back (another Redis after a failover) logs them at once.
    if count < ARRIVALS_LOGGED and now >= since and now - since < ARRIVALS_LOGGED_MS then
      if #changes > 0 then
        redis.call('APPEND', arrivalsLog, (waited > 0 and ',' or '') .. table.concat(changes, ','))
        redis.call('HSET', meta, 'wa', count, 'ws', int(since))
      end
      arrivalsWait = 1
      return version
    end
  end
  local logged = table.concat(changes, ',')
  if waited > 0 then
    local arrivals = redis.call('GET', arrivalsLog)
    if arrivals then logged = #changes > 0 and arrivals .. ',' .. logged or arrivals end
    redis.call('DEL', arrivalsLog)
    redis.call('HDEL', meta, 'wa', 'ws')
  end
  version = redis.call('HINCRBY', meta, 'v', 1)
  local fields = {'v', version, 's', served(), 'c', logged}
  if #releases > 0 then
    fields[#fields + 1] = 'r'
    fields[#fields + 1] = table.concat(releases, ',')
  end
  redis.call('XADD', log, 'MAXLEN', '~', LOG_LENGTH, '*', unpack(fields))
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

-- hold.lua's step (see there): the session's place, kept or new. Returns the entry, or 0 when its
-- address holds the most places already (nothing changes then).
local function holdPlace(session, userId, request, now, newUuid, address, cap, pendingUntil, keep)
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
      if keep ~= '1' then keepRequest(current, request) end
      return entry(current)
    end
  end
  -- Counted first and taken back when over its cap: one step for the places let in rather than two.
  if address ~= '' and redis.call('HINCRBY', addresses, address, 1) > cap and cap > 0 then
    redis.call('HINCRBY', addresses, address, -1)
    return 0
  end
  if current then forget(current) end
  -- A new place: its hash written in one step, and answered as `entry` reads it, without reading it back.
  local fields = {'s', session, 'u', userId, 'h', now, 'l', now}
  local function field(name, value)
    fields[#fields + 1] = name
    fields[#fields + 1] = value
  end
  if address ~= '' then field('ip', address) end
  if pendingUntil == '' then
    field('t', takeTicket(newUuid, now))
  else
    field('t', '0')
    field('p', pendingUntil)
    redis.call('ZADD', pending, pendingUntil, newUuid)
  end
  -- As `entry` answers it: the request second, and q not among the fields.
  local answer = {newUuid, request, unpack(fields)}
  local short = keepLongRequest(newUuid, request)
  if short then field('q', short) end
  redis.call('HSET', entryKey(newUuid), unpack(fields))
  redis.call('HSET', sessions, session, newUuid)
  return answer
end

-- admit.lua's step (see there): 1 when the session is admitted, or is now.
local function admitSession(session, now, activeLimit, sessionMs)
  expireAdmissions(now)
  if redis.call('ZSCORE', admitted, session) then return 1 end
  if lineSize() > 0 or redis.call('ZCARD', admitted) >= activeLimit then return 0 end
  redis.call('ZADD', admitted, int(admissionEnd(session, now, sessionMs)), session)
  return 1
end

-- place-in-line.lua's step (see there): {entry, position, recent release times, served}, or false.
local function placeOf(uuid, now)
  local state = redis.call('HMGET', entryKey(uuid), 't', 'a')
  if not state[1] then return false end
  redis.call('HSET', entryKey(uuid), 'l', now)
  if not state[2] then redis.call('ZADD', seen, 'XX', now, uuid) end
  return {entry(uuid), positionOf(uuid, state[2]), redis.call('LRANGE', recent, 0, -1), served()}
end
