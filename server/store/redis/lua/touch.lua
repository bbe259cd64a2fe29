-- args: uuid, now. Returns 1 when the uuid is known. Only waiting places are in "seen": XX.
local uuid, now = args[1], args[2]
if redis.call('EXISTS', entryKey(uuid)) == 0 then return 0 end
redis.call('HSET', entryKey(uuid), 'l', now)
redis.call('ZADD', seen, 'XX', now, uuid)
return 1
