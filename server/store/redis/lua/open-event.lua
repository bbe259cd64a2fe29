-- args: id. Once: keeps the last ticket as the opening's, and freezes the entrants, the waiting
-- places with a ticket in (after, open], under `ev:<id>:frozen` as JSON, [uuids, tickets] in ticket
-- order (every instance then computes the same draw from them). Returns the state's fields.
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'open') == 0 then
  local last = lastTicket()
  redis.call('HSETNX', key, 'after', last)
  redis.call('HSET', key, 'open', last)
  local found = redis.call('ZRANGEBYSCORE', waiting, '(' .. redis.call('HGET', key, 'after'), last, 'WITHSCORES')
  local uuids, tickets = {}, {}
  for i = 1, #found, 2 do
    uuids[#uuids + 1] = found[i]
    tickets[#tickets + 1] = tonumber(found[i + 1])
  end
  redis.call('SET', key .. ':frozen', #uuids > 0 and cjson.encode({uuids, tickets}) or NO_ENTRANTS)
end
return redis.call('HGETALL', key)
