-- args: id, count. One step of the draw, once every entrant is keyed (kc at the opening's ticket;
-- refused, -1, before): the next `count` draw keys in order, after the last one placed (pk). The
-- keying moved each entrant to its draw slot (add-draw-keys.lua), so the line holds them in draw
-- order already: a step moves nobody. It appends those still in their slots to the draw's order
-- (`ev:<id>:order`, a list) and raises the placed mark (pc) to the last one's slot, up to which a
-- release may reach (`drawnUpTo` in prelude.lua): nobody leaves the line before the order that
-- publishes them has them. A place gone is left out of the draw. The step that finds no key left
-- marks the draw done. Returns {1 once done, else 0 (-1 refused), entrants placed}.
local key = eventKey(args[1])
local count = tonumber(args[2])
local state = redis.call('HMGET', key, 'drawn', 'open', 'after', 'kc', 'pk', 'seed', 'sl')
if state[1] then return {1, 0} end
if state[6] and not state[7] then return withoutSlots(args[1]) end
local after = tonumber(state[3])
if not state[2] or tonumber(state[4] or drawBase(after)) < tonumber(state[2]) then return {-1, 0} end
local keys = key .. ':keys'
-- The keys after the last one placed: found in O(log n), where taking the placed ones off the set
-- cost as much again.
local members = redis.call('ZRANGEBYLEX', keys, state[5] and '(' .. state[5] or '-', '+', 'LIMIT', 0, count)

local placed, mark = 0, nil
for start = 1, #members, 1000 do
  local uuids, order = {}, {}
  for i = start, math.min(#members, start + 999) do uuids[#uuids + 1] = string.sub(members[i], 65) end
  local scores = redis.call('ZMSCORE', waiting, unpack(uuids))
  for i, uuid in ipairs(uuids) do
    local ticket = tonumber(scores[i])
    if ticket and ticket > after and ticket <= drawBase(after) then
      order[#order + 1] = uuid
      mark = ticket
    end
  end
  if #order > 0 then redis.call('RPUSH', key .. ':order', unpack(order)) end
  placed = placed + #order
end
if mark then redis.call('HSET', key, 'pc', int(mark)) end
if #members > 0 then redis.call('HSET', key, 'pk', members[#members]) end
if #members < count then
  redis.call('HSET', key, 'drawn', '1')
  redis.call('UNLINK', keys, key .. ':frozen')
  return {1, placed}
end
return {0, placed}
