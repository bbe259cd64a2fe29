-- args: id, the draw's uuids as JSON. Once: keeps the draw and marks it done. Returns 1 for the call
-- that did it.
local key = eventKey(args[1])
if redis.call('HSETNX', key, 'drawn', '1') == 0 then return 0 end
redis.call('SET', key .. ':order', args[2])
redis.call('DEL', key .. ':frozen')
return 1
