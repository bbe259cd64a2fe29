-- args: key, to, newUuid, now, movedMs, recordMs. Opens the link kept under key (offer-handoff.lua): the
-- first open before its expiry moves the place to session `to` under newUuid, with its ticket,
-- state, held request and admission, and marks the old uuid moved (`<prefix>mv:<uuid>`) for
-- movedMs. Returns {'moved', old uuid, name, the entry}, or {why}: 'unknown', 'used', 'expired',
-- 'gone'. Opened in time, the link is used, whatever its place became.
local key, to, newUuid, now, movedMs, recordMs = args[1], args[2], args[3], tonumber(args[4]), tonumber(args[5]), tonumber(args[6])
local link = prefix .. 'ho:' .. key
local offer = redis.call('HMGET', link, 'u', 's', 'n', 'x', 'o')
if not offer[1] or now >= tonumber(offer[4]) + recordMs then return {'unknown'} end
if offer[5] then return {'used'} end
if now >= tonumber(offer[4]) then return {'expired'} end
redis.call('HSET', link, 'o', to)
local old, from = offer[1], offer[2]
local state = redis.call('HMGET', entryKey(old), 's', 't', 'p', 'x', 'a')
if state[1] ~= from or state[3] or state[4] or tonumber(state[2] or '0') == 0 then return {'gone'} end
-- The same ticket under the new uuid: the entry, its held request, and its member in each set.
redis.call('RENAME', entryKey(old), entryKey(newUuid))
if redis.call('EXISTS', requestKey(old)) == 1 then redis.call('RENAME', requestKey(old), requestKey(newUuid)) end
redis.call('HSET', entryKey(newUuid), 's', to)
if state[5] then
  local at = redis.call('ZSCORE', releasedAt, old)
  redis.call('ZREM', releasedAt, old)
  if at then redis.call('ZADD', releasedAt, at, newUuid) end
  redis.call('HSET', entryKey(newUuid), 'l', int(now))
else
  local ticket = redis.call('ZSCORE', waiting, old)
  redis.call('ZREM', waiting, old)
  redis.call('ZADD', waiting, ticket, newUuid)
  redis.call('ZREM', seen, old)
  redis.call('ZADD', seen, int(now), newUuid)
  changed('~' .. old .. ':' .. newUuid)
  -- A draw key is its uuid's: an entrant of a shuffled pre-queue not yet in its draw slot takes a
  -- new ticket among the pre-queue's arrivals, so that it is keyed under its new uuid (arrival order
  -- counts for nothing there). One in its slot keeps it: its key was the old uuid's, and a visitor
  -- must not draw again by moving.
  local drawing = redis.call('HGET', meta, 'pq')
  if drawing then
    local marks = redis.call('HMGET', prefix .. 'ev:' .. drawing, 'after', 'open')
    if marks[1] and not marks[2] and tonumber(ticket) > drawBase(tonumber(marks[1])) then
      local fresh = int(redis.call('HINCRBY', meta, 't', 1))
      redis.call('HINCRBY', meta, 'sk', 1)
      redis.call('ZADD', waiting, fresh, newUuid)
      changed('>' .. fresh .. ':' .. newUuid)
    end
  end
end
redis.call('HDEL', sessions, from)
redis.call('HSET', sessions, to, newUuid)
local ends = redis.call('ZSCORE', admitted, from)
if ends then
  redis.call('ZREM', admitted, from)
  redis.call('ZADD', admitted, ends, to)
end
redis.call('SET', prefix .. 'mv:' .. old, int(now + movedMs), 'PX', int(movedMs))
return {'moved', old, offer[3], entry(newUuid)}
