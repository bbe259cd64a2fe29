-- args: now. Returns {waiting, active, released, paused, arrived, pending}.
expireAdmissions(tonumber(args[1]))
local counters = redis.call('HMGET', meta, 'n', 'p', 't', 'sk')
local arrived = tonumber(counters[3] or '0') - tonumber(counters[4] or '0')
return {redis.call('ZCARD', waiting), redis.call('ZCARD', admitted), tonumber(counters[1] or '0'), counters[2] == '1' and 1 or 0, arrived, redis.call('ZCARD', pending)}
