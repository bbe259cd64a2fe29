-- No args. Returns {active limit, releases a minute}, each false when not set.
return redis.call('HMGET', meta, 'la', 'lr')
