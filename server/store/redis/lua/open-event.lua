-- args: id. Once: keeps the last ticket as the opening's (and as the pre-queue's start when it had
-- none). O(1) whatever the pre-queue's size: its entrants are the waiting places with a ticket in
-- (after, open], which the draw places in steps (place-drawn.lua). Returns the state's fields.
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'open') == 0 then
  local last = lastTicket()
  redis.call('HSETNX', key, 'after', last)
  redis.call('HSET', key, 'open', last)
end
return redis.call('HGETALL', key)
