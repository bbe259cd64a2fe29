-- args: session, hash, now, address ('' for none), perPlace, perAddress, windowMs. The session's
-- place takes the priority code `hash`, in one step (see QueueStore.useCode). The code's key is
-- deleted as it is used, so that it moves one place only. Wrong codes are counted on the entry
-- (cg) and per address (`<prefix>cg:<address>`, forgotten windowMs after its first). Returns
-- {outcome} or {outcome, position}: 0 no place, 1 not waiting, 2 ahead already, 3 limited,
-- 4 moved, 5 wrong.
local session, hash, now = args[1], args[2], tonumber(args[3])
local address, perPlace, perAddress, windowMs = args[4], tonumber(args[5]), tonumber(args[6]), tonumber(args[7])
local uuid, refused = codeTaker(session, perPlace)
if refused == 2 then return {2, positionOf(uuid, false)} end
if refused then return {refused} end
local guesses = prefix .. 'cg:' .. address
if address ~= '' and tonumber(redis.call('GET', guesses) or '0') >= perAddress then return {3} end
local code = prefix .. 'c:' .. hash
local expiresAt = redis.call('GET', code)
if not expiresAt or tonumber(expiresAt) <= now then
  redis.call('HINCRBY', entryKey(uuid), 'cg', 1)
  if address ~= '' and redis.call('INCR', guesses) == 1 then redis.call('PEXPIRE', guesses, windowMs) end
  return {5}
end
redis.call('DEL', code)
redis.call('HINCRBY', meta, 'cu', 1)
local ticket = PRIORITY_TICKET_BASE + redis.call('HINCRBY', meta, 'pt', 1)
redis.call('HSET', entryKey(uuid), 't', int(ticket))
redis.call('ZADD', waiting, int(ticket), uuid)
changed('^' .. int(ticket) .. ':' .. uuid)
return {4, positionOf(uuid, false)}
