-- args: served, now, interval. Whether the pages of a room split across shards are told that its
-- line moved (parted-line.ts), `served` being its parts' together: as tellMove in prelude.lua, with
-- what was told kept in the first part's meta qs and qt (its own ms and mt are its part's).
local s, now, interval = tonumber(args[1]), tonumber(args[2]), tonumber(args[3])
local told = redis.call('HMGET', meta, 'qs', 'qt')
if s <= tonumber(told[1] or '0') or (told[2] and now - tonumber(told[2]) < interval) then return 0 end
redis.call('HSET', meta, 'qs', int(s), 'qt', int(now))
return 1
