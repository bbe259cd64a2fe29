-- args: count, now, sessionMs, abandonMs, random seed ('' to take the head), the id of an event whose
-- draw is being placed ('' none: see drawnUpTo). Returns {served, the
-- released entries in order, 1 when it tells the pages the line moved: whenever served grew}.
local now = tonumber(args[2])
local release = releaseNext(tonumber(args[1]), now, tonumber(args[3]), tonumber(args[4]), tonumber(args[5]), drawnUpTo(args[6]))
release[3] = tellMove(now, 0)
return release
