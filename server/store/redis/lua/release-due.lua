-- args: now, activeLimit, sessionMs, perMinute, abandonMs, random seed ('' to take the head), the id
-- of an event whose draw is being placed ('' none: releases stop at its placed mark, drawnUpTo),
-- claimMs (at most sessionMs), then the uuids of places a failover brought back waiting after
-- their release (releaseAgain: released first, whatever the pause, the limit and the bucket). Ends admissions, forgets released visitors whose claim window ended, then releases what the pause, the
-- active limit and the token bucket allow. The bucket starts with one second's worth (at least one
-- token), refills at perMinute and holds at most one second's worth and one token more
-- (`bucketCapacity` in memory.ts), so a paused or idle line cannot save up a burst, and the
-- fraction a second leaves over is carried, not lost to the cap. Returns {served, the released
-- entries in order, 1 when it is the step to tell the pages the line moved}.
local now, activeLimit, sessionMs = tonumber(args[1]), tonumber(args[2]), tonumber(args[3])
local perMinute, abandonMs = tonumber(args[4]), tonumber(args[5])
expireAdmissions(now)
local claimMs = math.min(tonumber(args[8]), sessionMs)
local ended = redis.call('ZRANGEBYSCORE', releasedAt, '-inf', int(now - claimMs), 'LIMIT', 0, FORGET_BATCH)
for _, uuid in ipairs(ended) do forget(uuid) end
local again = releaseAgain({unpack(args, 9)}, now, sessionMs)
if redis.call('HGET', meta, 'p') == '1' or perMinute <= 0 then return {served(), again, tellMove(now, MOVE_INTERVAL_MS)} end
local capacity = perMinute / 60 + 1
local bucket = redis.call('HMGET', meta, 'bt', 'ba')
local tokens = math.max(1, perMinute / 60)
if bucket[1] then tokens = tonumber(bucket[1]) + (now - tonumber(bucket[2])) * perMinute / 60000 end
tokens = math.min(capacity, tokens)
-- The tolerance absorbs the rounding of many small refills (ten of 0.1 make 0.999…).
local count = math.min(math.floor(tokens + 1e-9), activeLimit - redis.call('ZCARD', admitted))
local release = {served(), {}}
if count > 0 then release = releaseNext(count, now, sessionMs, abandonMs, tonumber(args[6]), drawnUpTo(args[7])) end
redis.call('HSET', meta, 'bt', string.format('%.17g', tokens - #release[2]), 'ba', int(now))
for i = #again, 1, -1 do table.insert(release[2], 1, again[i]) end
release[3] = tellMove(now, MOVE_INTERVAL_MS)
return release
