-- args: id.
local key = eventKey(args[1])
if redis.call('HGET', meta, 'pq') == args[1] then redis.call('HDEL', meta, 'pq') end
-- UNLINK: a draw of a million is freed in the background, not while Redis waits.
redis.call('UNLINK', key, key .. ':order', key .. ':frozen', key .. ':keys')
