-- args: sessionId, userId, request, now, newUuid, address key ('' none), places per address (0 no
-- cap), pending until ('' the place enters the line at once), keep ('1': a place the session has
-- keeps its request). A session that waits, or is pending, keeps its place and gets the new
-- request unless kept (a pending one enters the line when no pending time is given, else keeps
-- the later time); otherwise a new place under `newUuid`, pending or taking the
-- next ticket, unless its address holds the most places already: then 0, and nothing changes.
return holdPlace(args[1], args[2], args[3], args[4], args[5], args[6], tonumber(args[7]), args[8], args[9])
