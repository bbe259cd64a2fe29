-- args: id, [uuids, tickets] as JSON. Puts each entrant still waiting on the ticket given (its score
-- in the line and its entry's t); a place gone since is left out. Idempotent, so that instances
-- drawing at once, or one taking over from another that stopped, can only place the same entrants
-- the same way; nothing once drawn. Returns how many it placed.
if redis.call('HEXISTS', eventKey(args[1]), 'drawn') == 1 then return 0 end
local drawn = cjson.decode(args[2])
local uuids, tickets = drawn[1], drawn[2]
local placed = 0
for i, uuid in ipairs(uuids) do
  if redis.call('ZSCORE', waiting, uuid) then
    local ticket = int(tickets[i])
    redis.call('ZADD', waiting, 'XX', ticket, uuid)
    redis.call('HSET', entryKey(uuid), 't', ticket)
    placed = placed + 1
  end
end
if placed > 0 then changed('!') end
return placed
