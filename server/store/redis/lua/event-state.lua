-- args: id. Returns the state's fields.
return redis.call('HGETALL', eventKey(args[1]))
