-- args: id. Returns 1 for the first call only.
return redis.call('HSETNX', eventKey(args[1]), 'announced', '1')
