-- args: id, mark, key..uuid, …. Keeps the entrants' draw keys (each its HMAC as 64 hex digits
-- followed by its uuid) in `ev:<id>:keys`, a sorted set in key order, raises the keyed mark (kc) to
-- `mark`, and moves each entrant still waiting on its arrival ticket to its draw slot (`keyInPlace`
-- in event-prelude.lua), so that the line holds the keyed entrants in draw order all along: the
-- opening has nothing left to move. Until the opening no position shows it (queue_info answers a
-- pre-queued place the line's length). Each move is logged ('>slot:uuid'), for the line's copies.
-- Idempotent: instances keying the same places at once add the same members and slots. Nothing
-- once the draw is done.
local key = eventKey(args[1])
local state = redis.call('HMGET', key, 'drawn', 'after', 'seed', 'sl')
if state[1] or not state[2] then return 0 end
-- Slots are kept (sl) by a pre-queue that began with a seed on this version (start-prequeue.lua).
if not state[3] then return redis.error_reply('ERR event ' .. args[1] .. ' has no draw: its pre-queue began without a seed') end
if not state[4] then return withoutSlots(args[1]) end
local after = tonumber(state[2])
local keys = key .. ':keys'
for start = 3, #args, 1000 do
  local members = {}
  for i = start, math.min(#args, start + 999) do
    members[#members + 1] = 0
    members[#members + 1] = args[i]
  end
  redis.call('ZADD', keys, unpack(members))
end
for i = 3, #args do keyInPlace(keys, after, args[i]) end
local mark = tonumber(redis.call('HGET', key, 'kc') or '0')
if tonumber(args[2]) > mark then redis.call('HSET', key, 'kc', args[2]) end
return #args - 2
