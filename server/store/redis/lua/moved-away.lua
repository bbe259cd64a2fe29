-- args: uuid, now. Returns 1 when uuid is the old uuid of a place moved to another browser
-- (take-handoff.lua) and its mark still holds at now.
local ends = redis.call('GET', prefix .. 'mv:' .. args[1])
if ends and tonumber(ends) > tonumber(args[2]) then return 1 end
return 0
