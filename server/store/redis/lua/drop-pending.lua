-- args: uuid. Forgets the place when it is pending: returns 1, else 0.
if redis.call('HEXISTS', entryKey(args[1]), 'p') == 0 then return 0 end
forget(args[1])
return 1
