-- args: sessionId, now, keepSlotMs, newEpoch. Ends the session's admission (a site's revoke) and
-- enters it in the revocation feed; its slot counts, as '~' .. session in admitted, for keepSlotMs
-- more (at most until the admission would have ended). 1 when it was admitted.
local session, now, keep = args[1], tonumber(args[2]), tonumber(args[3])
expireAdmissions(now)
local ends = redis.call('ZSCORE', admitted, session)
if not ends then return 0 end
ends = tonumber(ends)
redis.call('ZREM', admitted, session)
local slot = '~' .. session
local kept = math.max(math.min(ends, now + keep), tonumber(redis.call('ZSCORE', admitted, slot) or '0'))
if kept > now then redis.call('ZADD', admitted, int(kept), slot) end
forgetRevocations(now)
redis.call('HSETNX', meta, 're', args[4])
local sequence = redis.call('HINCRBY', meta, 'rs', 1)
redis.call('ZADD', revokedLog, sequence, session)
redis.call('HSET', revokedEnds, session, int(math.floor(ends / 1000)))
return 1
