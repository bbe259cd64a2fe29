-- args: id, mark, key..uuid, …. Keeps the entrants' draw keys (each its HMAC as 64 hex digits
-- followed by its uuid) in `ev:<id>:keys`, a sorted set in key order, and raises the keyed mark
-- (kc) to `mark`. Idempotent: instances keying the same places at once add the same members.
-- Nothing once the draw is done.
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'drawn') == 1 then return 0 end
for start = 3, #args, 1000 do
  local members = {}
  for i = start, math.min(#args, start + 999) do
    members[#members + 1] = 0
    members[#members + 1] = args[i]
  end
  redis.call('ZADD', key .. ':keys', unpack(members))
end
local mark = tonumber(redis.call('HGET', key, 'kc') or '0')
if tonumber(args[2]) > mark then redis.call('HSET', key, 'kc', args[2]) end
return #args - 2
