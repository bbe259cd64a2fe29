-- args: id. Returns {2, the draw's uuids as JSON} once drawn, {1, the frozen entrants as JSON,
-- [uuids, tickets]} once open, else {0, the waiting uuids with a ticket above after, in ticket
-- order}.
local key = eventKey(args[1])
local state = redis.call('HMGET', key, 'drawn', 'after', 'open')
if state[1] then return {2, storedEntrants(key .. ':order', false)} end
if state[3] then return {1, storedEntrants(key .. ':frozen', true)} end
if not state[2] then return {0, {}} end
return {0, redis.call('ZRANGEBYSCORE', waiting, '(' .. state[2], '+inf')}
