-- args: hash, expiresAt, now. Gives back a code parted-code-take.lua used for a place that answered
-- it could not take it after all (it left the line, or another code moved it, meanwhile): kept
-- again until it expires, and no longer counted used. Returns 1 when kept again.
local expiresAt, now = tonumber(args[2]), tonumber(args[3])
if expiresAt <= now then
  redis.call('HINCRBY', meta, 'cu', -1)
  return 0
end
redis.call('SET', prefix .. 'c:' .. args[1], int(expiresAt), 'PX', int(expiresAt - now))
redis.call('HINCRBY', meta, 'cu', -1)
return 1
