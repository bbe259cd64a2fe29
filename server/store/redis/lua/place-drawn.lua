-- args: id, count. One step of the draw: the next `count` draw keys in order (see add-draw-keys.lua),
-- each entrant still waiting with a ticket above the placed mark (pc, from the pre-queue's start)
-- taking the first such ticket in line: it swaps tickets with the place that holds it. So after
-- each step, the first tickets of the pre-queue hold the drawn entrants so far, in draw order,
-- and every entrant not yet placed is behind them (a release stops at pc until the draw is done,
-- see `drawnUpTo` in prelude.lua). A place gone is left out of the draw. Each step is logged
-- ('=ticket:uuid', twice a swap) for the copies of the line, and the placed uuids are appended
-- to the draw's order (`ev:<id>:order`, a list). Refused (-1) until every entrant is keyed (kc
-- at the opening's ticket). The step that finds no key left marks the draw done. Returns {1 once
-- done, else 0 (-1 refused), entrants placed}.
local key = eventKey(args[1])
local count = tonumber(args[2])
local state = redis.call('HMGET', key, 'drawn', 'open', 'after', 'kc', 'pc')
if state[1] then return {1, 0} end
if not state[2] or tonumber(state[4] or state[3]) < tonumber(state[2]) then return {-1, 0} end
local open = tonumber(state[2])
local mark = tonumber(state[5] or state[3])
local keys = key .. ':keys'
local members = redis.call('ZRANGE', keys, 0, count - 1)
local order = {}
for _, member in ipairs(members) do
  local uuid = string.sub(member, 65)
  local ticket = tonumber(redis.call('ZSCORE', waiting, uuid))
  if ticket and ticket > mark and ticket <= open then
    local first = redis.call('ZRANGEBYSCORE', waiting, '(' .. int(mark), int(open), 'WITHSCORES', 'LIMIT', 0, 1)
    local other, target = first[1], tonumber(first[2])
    if other ~= uuid then
      redis.call('ZADD', waiting, 'XX', target, uuid, ticket, other)
      redis.call('HSET', entryKey(uuid), 't', target)
      redis.call('HSET', entryKey(other), 't', ticket)
      changed('=' .. int(target) .. ':' .. uuid)
      changed('=' .. int(ticket) .. ':' .. other)
    end
    mark = target
    order[#order + 1] = uuid
  end
end
if #members > 0 then redis.call('ZREMRANGEBYRANK', keys, 0, #members - 1) end
for start = 1, #order, 1000 do
  redis.call('RPUSH', key .. ':order', unpack(order, start, math.min(#order, start + 999)))
end
redis.call('HSET', key, 'pc', int(mark))
if #members < count then
  redis.call('HSET', key, 'drawn', '1')
  redis.call('UNLINK', keys, key .. ':frozen')
  return {1, #order}
end
return {0, #order}
