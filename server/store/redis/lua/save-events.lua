-- args: version, JSON. Returns 1 when saved, 0 when another change came first.
local key = prefix .. 'events'
local version = tonumber(redis.call('HGET', key, 'v') or '0')
if version ~= tonumber(args[1]) then return 0 end
redis.call('HSET', key, 'v', version + 1, 'j', args[2])
return 1
