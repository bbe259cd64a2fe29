-- args: uuid, now. A pending place enters the line (the next ticket); any other is left as it is.
-- Returns the place's state after it, or false when unknown.
local uuid, now = args[1], args[2]
local state = redis.call('HMGET', entryKey(uuid), 't', 'a', 'p')
if not state[1] then return false end
if state[3] then
  enter(uuid, now)
  return 'waiting'
end
return state[2] and 'released' or 'waiting'
