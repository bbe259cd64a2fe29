-- No args. Returns the operator's bot-check difficulty, or false when not set.
return redis.call('HGET', meta, 'cd')
