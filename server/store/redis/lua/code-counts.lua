-- No args. Returns {codes issued, codes used} (meta ci, cu).
local counts = redis.call('HMGET', meta, 'ci', 'cu')
return {tonumber(counts[1] or '0'), tonumber(counts[2] or '0')}
