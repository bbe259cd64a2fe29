-- args: id. Returns {2, the draw's uuids comma-separated} once drawn, {1, the frozen entrants as
-- `uuid:ticket,…`} once open, else {0, the waiting uuids with a ticket above after, in ticket
-- order}.
local key = eventKey(args[1])
local state = redis.call('HMGET', key, 'drawn', 'after', 'open')
if state[1] then return {2, redis.call('GET', key .. ':order') or ''} end
if state[3] then return {1, redis.call('GET', key .. ':frozen') or ''} end
if not state[2] then return {0, {}} end
return {0, redis.call('ZRANGEBYSCORE', waiting, '(' .. state[2], '+inf')}
