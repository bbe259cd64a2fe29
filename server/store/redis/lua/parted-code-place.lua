-- args: session, perPlace, step. A priority code in a line split across shards, the step in the
-- session's part (`PartedLine.useCode`): 'check' says whether the session's place may take a code,
-- 'wrong' counts a wrong one against it (cg), and a ticket (taken with the code in the first part,
-- parted-code-take.lua) moves it ahead, as use-code.lua does. Returns {outcome} or
-- {outcome, position in this part, uuid}: 0 no place, 1 not waiting, 2 ahead already, 3 limited,
-- 4 moved (or, at 'check', may take it), 5 wrong.
local session, perPlace, step = args[1], tonumber(args[2]), args[3]
local uuid, refused = codeTaker(session, perPlace)
if refused == 2 then return {2, positionOf(uuid, false), uuid} end
if refused then return {refused} end
if step == 'check' then return {4, 0, uuid} end
if step == 'wrong' then
  redis.call('HINCRBY', entryKey(uuid), 'cg', 1)
  return {5}
end
redis.call('HSET', entryKey(uuid), 't', step)
redis.call('ZADD', waiting, step, uuid)
changed('^' .. step .. ':' .. uuid)
return {4, positionOf(uuid, false), uuid}
