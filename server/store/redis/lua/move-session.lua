-- args: from, to, userId. Moves the session's place (its uuid stays, so the line, the released set
-- and the held request are untouched) and its admission (same end) to `to`. A place `to` had is
-- forgotten, and so leaves the line.
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
