-- args: sessionId, userId, request, now, newUuid, address key ('' none), places per address (0 no
-- cap), pending until ('' the place enters the line at once), keep ('1': a place the session has
-- keeps its request). A session that waits, or is pending, keeps its place and gets the new
-- request unless kept (a pending one enters the line when no pending time is given, else keeps
-- the later time); otherwise a new place under `newUuid`, pending or taking the
-- next ticket, unless its address holds the most places already: then 0, and nothing changes.
local session, userId, request, now, newUuid = args[1], args[2], args[3], args[4], args[5]
local address, cap, pendingUntil, keep = args[6], tonumber(args[7]), args[8], args[9]
local current = redis.call('HGET', sessions, session)
if current then
  local state = redis.call('HMGET', entryKey(current), 't', 'a', 'p')
  if state[1] and not state[2] then
    redis.call('HSET', entryKey(current), 'u', userId, 'l', now)
    if not state[3] then
      redis.call('ZADD', seen, 'XX', now, current)
    elseif pendingUntil == '' then
      enter(current, now)
    elseif tonumber(pendingUntil) > tonumber(state[3]) then
      redis.call('HSET', entryKey(current), 'p', pendingUntil)
      redis.call('ZADD', pending, pendingUntil, current)
    end
    if keep ~= '1' then keepRequest(current, request) end
    return entry(current)
  end
end
if address ~= '' and cap > 0 and tonumber(redis.call('HGET', addresses, address) or '0') >= cap then return 0 end
if current then forget(current) end
redis.call('HSET', entryKey(newUuid), 's', session, 'u', userId, 't', 0, 'h', now, 'l', now)
keepRequest(newUuid, request)
redis.call('HSET', sessions, session, newUuid)
if address ~= '' then
  redis.call('HSET', entryKey(newUuid), 'ip', address)
  redis.call('HINCRBY', addresses, address, 1)
end
if pendingUntil == '' then
  enter(newUuid, now)
else
  redis.call('HSET', entryKey(newUuid), 'p', pendingUntil)
  redis.call('ZADD', pending, pendingUntil, newUuid)
end
return entry(newUuid)
