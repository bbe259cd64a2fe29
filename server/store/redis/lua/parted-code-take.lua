-- args: hash, now, address, perAddress, windowMs. A priority code in a line split across shards,
-- the step in its first part, where the codes are kept (`PartedLine.useCode`): the address's wrong
-- codes bound it and a wrong one counts against them, as in use-code.lua; a right one is used
-- (never again) and the room's next code holder's ticket taken with it. Returns {3} limited, {5}
-- wrong, or {4, the ticket, when the code would have expired}.
local hash, now = args[1], tonumber(args[2])
local address, perAddress, windowMs = args[3], tonumber(args[4]), tonumber(args[5])
local guesses = prefix .. 'cg:' .. address
if address ~= '' and tonumber(redis.call('GET', guesses) or '0') >= perAddress then return {3} end
local code = prefix .. 'c:' .. hash
local expiresAt = redis.call('GET', code)
if not expiresAt or tonumber(expiresAt) <= now then
  if address ~= '' and redis.call('INCR', guesses) == 1 then redis.call('PEXPIRE', guesses, windowMs) end
  return {5}
end
redis.call('DEL', code)
redis.call('HINCRBY', meta, 'cu', 1)
return {4, int(PRIORITY_TICKET_BASE + redis.call('HINCRBY', meta, 'pt', 1)), expiresAt}
