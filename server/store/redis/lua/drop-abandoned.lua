-- args: now, abandonMs. The sweep of those who walked away: drops the waiting places last seen more
-- than abandonMs before now, the longest silent first, at most ABANDON_BATCH so that one call
-- never blocks Redis for long. Returns how many it dropped.
local now, abandonMs = tonumber(args[1]), tonumber(args[2])
local silent = redis.call('ZRANGEBYSCORE', seen, '-inf', '(' .. int(now - abandonMs), 'LIMIT', 0, ABANDON_BATCH)
for _, uuid in ipairs(silent) do forget(uuid) end
local expired = redis.call('ZRANGEBYSCORE', pending, '-inf', int(now), 'LIMIT', 0, ABANDON_BATCH)
for _, uuid in ipairs(expired) do forget(uuid) end
return #silent
