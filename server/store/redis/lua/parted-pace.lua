-- args: now, perMinute, most, given back. The release loop's pace of a room split across shards
-- (parted-line.ts), kept in its first part: after putting back the releases a step took and did not
-- make, takes at most `most` from the token bucket that release-due.lua keeps (the same refill and
-- cap), none while the room is paused or its rate is 0. Returns how many it took.
local now, perMinute, most, back = tonumber(args[1]), tonumber(args[2]), tonumber(args[3]), tonumber(args[4])
local bucket = redis.call('HMGET', meta, 'bt', 'ba')
local tokens = math.max(1, perMinute / 60)
if bucket[1] then tokens = tonumber(bucket[1]) + (now - tonumber(bucket[2])) * perMinute / 60000 end
tokens = math.min(perMinute / 60 + 1, tokens + back)
local take = 0
if redis.call('HGET', meta, 'p') ~= '1' and perMinute > 0 then take = math.max(0, math.min(math.floor(tokens + 1e-9), most)) end
redis.call('HSET', meta, 'bt', string.format('%.17g', tokens - take), 'ba', int(now))
return take
