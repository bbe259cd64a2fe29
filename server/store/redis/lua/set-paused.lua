-- args: paused ('1' or '0').
redis.call('HSET', meta, 'p', args[1])
