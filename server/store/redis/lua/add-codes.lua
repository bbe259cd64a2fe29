-- args: now, expiresAt, hash... Keeps each priority code by its hash (`<prefix>c:<hash>`, its value
-- when it expires, in the callers' ms; Redis forgets the key then too), and counts them issued
-- (meta ci). Returns how many it kept.
local now, expiresAt = tonumber(args[1]), tonumber(args[2])
local ttl = math.max(1, expiresAt - now)
for i = 3, #args do
  redis.call('SET', prefix .. 'c:' .. args[i], int(expiresAt), 'PX', int(ttl))
end
redis.call('HINCRBY', meta, 'ci', #args - 2)
return #args - 2
