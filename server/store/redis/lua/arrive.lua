-- args: ARRIVAL_ARGS for each arrival, in the order they came (`RedisStore.arrive` sends those of a
-- turn together): sessionId, now, activeLimit ('' to hold whatever: a pre-queue), sessionMs, then
-- hold.lua's from userId on: userId, request, newUuid, address key, places per address, pending
-- until, keep. Each protected request's arrival in one step, in turn, each answered: {1} when the
-- session is admitted (or is now), else {0, {the entry of the place it holds, its position,
-- served}}; {2} when its address holds the most places already (nothing changes for it then). The
-- place is marked seen by holding it; the release times are read apart (recent-releases.lua),
-- shared by the instance's visitors. The line's changes of them all are logged as one entry.
local out = {}
-- Served is read once: arrivals release nobody.
local servedNow
for i = 1, #args, ARRIVAL_ARGS do
  local session, now = args[i], args[i + 1]
  if args[i + 2] ~= '' and admitSession(session, tonumber(now), tonumber(args[i + 2]), tonumber(args[i + 3])) == 1 then
    out[#out + 1] = {1}
  else
    local taken = ticketsTaken
    local held = holdPlace(session, args[i + 4], args[i + 5], now, args[i + 6], args[i + 7], tonumber(args[i + 8]), args[i + 9], args[i + 10])
    if held == 0 then
      out[#out + 1] = {2}
    else
      -- A ticket taken now is the largest: its place is the back of the line.
      local position = ticketsTaken > taken and lineSize() or positionOf(held[1], false)
      servedNow = servedNow or served()
      out[#out + 1] = {0, {held, position, servedNow}}
    end
  end
end
return out
