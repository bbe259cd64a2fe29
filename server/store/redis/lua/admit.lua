-- args: sessionId, now, activeLimit, sessionMs. Returns 1 when admitted.
local session, now = args[1], tonumber(args[2])
expireAdmissions(now)
if redis.call('ZSCORE', admitted, session) then return 1 end
if redis.call('ZCARD', waiting) > 0 or redis.call('ZCARD', admitted) >= tonumber(args[3]) then return 0 end
redis.call('ZADD', admitted, int(admissionEnd(session, now, tonumber(args[4]))), session)
return 1
