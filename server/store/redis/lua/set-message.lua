-- args: the message's texts as JSON, or '' to clear it; now (ms). The version grows by one at
-- least, and is at least now: a line started afresh still answers larger versions than before.
-- Returns what `message` returns, after the change.
local version = math.max(tonumber(redis.call('HGET', meta, 'mv') or '0') + 1, math.floor(tonumber(args[2])))
redis.call('HSET', meta, 'mv', string.format('%d', version))
if args[1] == '' then redis.call('HDEL', meta, 'mg') else redis.call('HSET', meta, 'mg', args[1]) end
return {redis.call('HGET', meta, 'mv'), redis.call('HGET', meta, 'mg')}
