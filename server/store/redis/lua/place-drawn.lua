-- args: id, count. One step of the draw: the next `count` draw keys in order (see add-draw-keys.lua);
-- the entrants among them still waiting with a ticket above the placed mark (pc, from the pre-queue's
-- start) take, in that order, the first tickets above the mark, the k first for k such entrants. So
-- after each step, the first tickets of the pre-queue hold the drawn entrants so far, in draw order,
-- and every entrant not yet placed is behind them (a release stops at pc until the draw is done,
-- see `drawnUpTo` in prelude.lua). A place gone is left out of the draw.
--
-- The step is one exchange of tickets, not a swap an entrant: the k first tickets are read in one
-- call, and an entrant not drawn that holds one of them takes a ticket a drawn one left behind it
-- (one above the k-th, so not a target), in the same order. Every ticket moved has one new holder,
-- none is given twice and none is lost, so the places keep their positions 1..n, and the line's
-- copies apply the step's changes ('=ticket:uuid', one a place moved) as one log entry. The placed
-- uuids are appended to the draw's order (`ev:<id>:order`, a list). Refused (-1) until every
-- entrant is keyed (kc at the opening's ticket). The step that finds no key left marks the draw
-- done. Returns {1 once done, else 0 (-1 refused), entrants placed}.
local key = eventKey(args[1])
local count = tonumber(args[2])
local state = redis.call('HMGET', key, 'drawn', 'open', 'after', 'kc', 'pc', 'pk')
if state[1] then return {1, 0} end
if not state[2] or tonumber(state[4] or state[3]) < tonumber(state[2]) then return {-1, 0} end
local open = tonumber(state[2])
local mark = tonumber(state[5] or state[3])
local keys = key .. ':keys'
-- The keys after the last one placed (pk): found in O(log n), where taking the placed ones off the
-- set cost as much again.
local members = redis.call('ZRANGEBYLEX', keys, state[6] and '(' .. state[6] or '-', '+', 'LIMIT', 0, count)

-- The step's entrants still waiting above the mark, in draw order, with their tickets.
local drawn, from, taken = {}, {}, {}
for start = 1, #members, 1000 do
  local uuids = {}
  for i = start, math.min(#members, start + 999) do uuids[#uuids + 1] = string.sub(members[i], 65) end
  local scores = redis.call('ZMSCORE', waiting, unpack(uuids))
  for i, uuid in ipairs(uuids) do
    local ticket = tonumber(scores[i])
    if ticket and ticket > mark and ticket <= open and not taken[uuid] then
      taken[uuid] = true
      drawn[#drawn + 1] = uuid
      from[#from + 1] = ticket
    end
  end
end

local moves = {}
local function move(ticket, uuid)
  moves[#moves + 1] = ticket
  moves[#moves + 1] = uuid
  changed('=' .. ticket .. ':' .. uuid)
end
if #drawn > 0 then
  -- The k first tickets above the mark and their holders: there are k at least (the drawn hold k).
  local first = redis.call('ZRANGEBYSCORE', waiting, '(' .. int(mark), int(open), 'WITHSCORES', 'LIMIT', 0, #drawn)
  local last = tonumber(first[#first])
  -- Left behind by the drawn: their tickets above the k-th, in ticket order.
  local left = {}
  for i = 1, #drawn do
    if from[i] > last then left[#left + 1] = from[i] end
  end
  table.sort(left)
  local next = 1
  for i = 1, #drawn do
    local holder, target = first[2 * i - 1], first[2 * i]
    if holder ~= drawn[i] then
      move(target, drawn[i])
      -- A holder not drawn in this step takes the next ticket left behind.
      if not taken[holder] then
        move(int(left[next]), holder)
        next = next + 1
      end
    end
  end
  for start = 1, #moves, 2000 do
    redis.call('ZADD', waiting, 'XX', unpack(moves, start, math.min(#moves, start + 1999)))
  end
  mark = last
end

for start = 1, #drawn, 1000 do
  redis.call('RPUSH', key .. ':order', unpack(drawn, start, math.min(#drawn, start + 999)))
end
redis.call('HSET', key, 'pc', int(mark))
if #members > 0 then redis.call('HSET', key, 'pk', members[#members]) end
if #members < count then
  redis.call('HSET', key, 'drawn', '1')
  redis.call('UNLINK', keys, key .. ':frozen')
  return {1, #drawn}
end
return {0, #drawn}
