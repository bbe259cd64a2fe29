-- args: uuid. Takes back a replay's mark (no replica acknowledged it): the request may be replayed.
redis.call('HDEL', entryKey(args[1]), 'x')
return 1
