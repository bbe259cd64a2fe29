-- args: the difficulty, or '' to clear it. Returns what `challengeDifficulty` returns, after the
-- change.
if args[1] == '' then redis.call('HDEL', meta, 'cd') else redis.call('HSET', meta, 'cd', args[1]) end
return redis.call('HGET', meta, 'cd')
