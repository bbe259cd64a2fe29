-- args: id.
local key = eventKey(args[1])
-- UNLINK: a draw of a million is freed in the background, not while Redis waits.
redis.call('UNLINK', key, key .. ':order', key .. ':frozen', key .. ':keys')
