-- No args. Returns {version or false, JSON or false}.
return redis.call('HMGET', prefix .. 'events', 'v', 'j')
