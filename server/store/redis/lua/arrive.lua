-- args: sessionId, now, activeLimit ('' to hold whatever: a pre-queue), sessionMs, then hold.lua's
-- from userId on: userId, request, newUuid, address key, places per address, pending until, keep.
-- A protected request's arrival in one step: {1} when the session is admitted (or is now), else
-- the place it holds, as place-in-line.lua answers it, after {0}; {2} when its address holds the
-- most places already (nothing changes then).
local session, now = args[1], args[2]
if args[3] ~= '' and admitSession(session, tonumber(now), tonumber(args[3]), tonumber(args[4])) == 1 then return {1} end
local held = holdPlace(session, args[5], args[6], now, args[7], args[8], tonumber(args[9]), args[10], args[11])
if held == 0 then return {2} end
return {0, placeOf(held[1], now)}
