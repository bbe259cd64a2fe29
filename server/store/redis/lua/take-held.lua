-- args: uuid, sessionId. Returns the held request the first time only, else false.
local uuid, session = args[1], args[2]
local state = redis.call('HMGET', entryKey(uuid), 's', 'a', 'x')
if state[1] ~= session or not state[2] or state[3] then return false end
redis.call('HSET', entryKey(uuid), 'x', '1')
return requestOf(uuid)
