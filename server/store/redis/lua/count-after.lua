-- args: ticket. Returns how many wait with a larger ticket.
return redis.call('ZCOUNT', waiting, '(' .. args[1], '+inf')
