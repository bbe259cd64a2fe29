-- args: sessionId, now, activeLimit ('' to hold whatever: a pre-queue), sessionMs, then hold.lua's
-- from userId on: userId, request, newUuid, address key, places per address, pending until, keep.
-- A protected request's arrival in one step: {1} when the session is admitted (or is now), else
-- {0, {the entry of the place it holds, its position, served}}; {2} when its address holds the
-- most places already (nothing changes then). The place is marked seen by holding it; the release times are
-- read apart (recent-releases.lua), shared by the instance's visitors.
local session, now = args[1], args[2]
if args[3] ~= '' and admitSession(session, tonumber(now), tonumber(args[3]), tonumber(args[4])) == 1 then return {1} end
local held = holdPlace(session, args[5], args[6], now, args[7], args[8], tonumber(args[9]), args[10], args[11])
if held == 0 then return {2} end
local rank = redis.call('ZRANK', waiting, held[1])
return {0, {held, rank and rank + 1 or 0, served()}}
