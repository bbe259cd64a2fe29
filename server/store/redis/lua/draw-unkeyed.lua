-- args: id, count. The entrants not yet given their draw key: the waiting places with a ticket
-- above the keyed mark (kc, from the draw's slots' end), up to the opening's ticket once open, at
-- most count, in ticket order. Returns {the mark once these are keyed, uuid, …}: the last one's
-- ticket, or the opening's once the page reaches it (no entrant can come after).
local key = eventKey(args[1])
local count = tonumber(args[2])
local state = redis.call('HMGET', key, 'after', 'open', 'kc')
if not state[1] then return {0} end
local mark = state[3] or int(drawBase(tonumber(state[1])))
local found = redis.call('ZRANGEBYSCORE', waiting, '(' .. mark, state[2] or '+inf', 'WITHSCORES', 'LIMIT', 0, count)
local out = {0}
for i = 1, #found, 2 do out[#out + 1] = found[i] end
if state[2] and #out - 1 < count then
  out[1] = tonumber(state[2])
else
  out[1] = #found > 0 and tonumber(found[#found]) or tonumber(mark)
end
return out
