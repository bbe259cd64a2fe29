-- args: sessionId, now, activeLimit, sessionMs. Returns 1 when admitted (admitSession in prelude.lua).
return admitSession(args[1], tonumber(args[2]), tonumber(args[3]), tonumber(args[4]))
