-- Run once by each store before its first call: the version before kept the line as a list
-- (`<prefix>line`, uuids in ticket order). Its waiting places move into the sorted sets, so that
-- upgrading loses no place. KEYS: the old list, waiting, seen; ARGV: the prefix. Every instance of
-- a room must run the same version: an old one would go on writing the list.
local line, waiting, seen, prefix = KEYS[1], KEYS[2], KEYS[3], ARGV[1]
if redis.call('EXISTS', line) == 0 then return 0 end
local uuids = redis.call('LRANGE', line, 0, -1)
for _, uuid in ipairs(uuids) do
  local fields = redis.call('HMGET', prefix .. 'e:' .. uuid, 't', 'l', 'a')
  if fields[1] and not fields[3] then
    redis.call('ZADD', waiting, fields[1], uuid)
    redis.call('ZADD', seen, fields[2], uuid)
  end
end
redis.call('DEL', line)
return #uuids
