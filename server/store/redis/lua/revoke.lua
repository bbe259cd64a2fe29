-- args: sessionId, now. Ends the session's admission (the origin's revoke): 1 when it was admitted.
local session, now = args[1], tonumber(args[2])
expireAdmissions(now)
return redis.call('ZREM', admitted, session)
