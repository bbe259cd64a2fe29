-- args: id. Returns {3, the draw's length} once drawn (its order a list, read in pages), {2, the
-- draw's uuids as JSON} once drawn by the version before, else the entrants in ticket order: {0,
-- the waiting uuids with a ticket above after, up to open once open}.
local key = eventKey(args[1])
local state = redis.call('HMGET', key, 'drawn', 'after', 'open')
if state[1] then
  if redis.call('TYPE', key .. ':order').ok == 'list' then return {3, redis.call('LLEN', key .. ':order')} end
  return {2, storedEntrants(key .. ':order', false)}
end
if not state[2] then return {0, {}} end
return {0, redis.call('ZRANGEBYSCORE', waiting, '(' .. state[2], state[3] or '+inf')}
