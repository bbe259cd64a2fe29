-- args: id.
local key = eventKey(args[1])
redis.call('DEL', key, key .. ':order', key .. ':frozen', key .. ':keys')
