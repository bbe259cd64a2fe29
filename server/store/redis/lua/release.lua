-- args: count, now, sessionMs, abandonMs, random seed ('' to take the head), the id of an event whose
-- draw is being placed ('' none: see drawnUpTo), the last ticket to release ('' none: a part of a
-- room split across shards releases up to the room's cut, parted-line.ts). Returns {served, the
-- released entries in order, 1 when it tells the pages the line moved: whenever served grew}.
local now = tonumber(args[2])
local limit = drawnUpTo(args[6])
if args[7] and args[7] ~= '' then limit = math.min(limit or math.huge, tonumber(args[7])) end
local release = releaseNext(tonumber(args[1]), now, tonumber(args[3]), tonumber(args[4]), tonumber(args[5]), limit)
release[3] = tellMove(now, 0)
return release
