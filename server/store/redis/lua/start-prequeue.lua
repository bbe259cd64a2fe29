-- args: id, seed ('' for none). Keeps them and the last ticket once; returns the state's fields.
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'after') == 0 then
  redis.call('HSET', key, 'after', lastTicket())
  if args[2] ~= '' then redis.call('HSET', key, 'seed', args[2]) end
end
return redis.call('HGETALL', key)
