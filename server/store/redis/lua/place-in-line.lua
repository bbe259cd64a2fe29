-- args: uuid, now. Returns {entry, position, recent release times} or false.
local uuid, now = args[1], args[2]
local state = redis.call('HMGET', entryKey(uuid), 't', 'a')
if not state[1] then return false end
redis.call('HSET', entryKey(uuid), 'l', now)
if not state[2] then redis.call('ZADD', seen, 'XX', now, uuid) end
return {entry(uuid), positionOf(uuid, state[2]), redis.call('LRANGE', recent, 0, -1)}
