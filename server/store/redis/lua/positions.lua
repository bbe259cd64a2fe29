-- args: uuid, now, uuid, now, … (queue_info's polls that arrived together, see `PositionBatch`).
-- Returns {served, then for each uuid its position and its ticket}: the position is its rank among
-- those waiting, 0 once released, -2 while it waits for its bot check, -1 when unknown. Each
-- visitor is marked as seen at its `now`. A waiting visitor costs three steps: the rank (ZRANK,
-- O(log n), which also says it waits: only waiting places are in the line), its ticket (the line's
-- score, ZSCORE, O(1)) and the last-seen write the sweep reads (ZADD in O(log n)), in `seen` only:
-- writing the entry's hash as well cost about as much again as that ZADD, a third of the script's
-- time a poll. The script's own cost is paid once for the whole batch. Run without a deadline (no
-- TIME): a mark of seen that arrives late is harmless.
local out = {served()}
for i = 1, #args, 2 do
  local uuid, now = args[i], args[i + 1]
  local rank = redis.call('ZRANK', waiting, uuid)
  if rank then
    redis.call('ZADD', seen, 'XX', now, uuid)
    out[#out + 1] = rank + 1
    out[#out + 1] = tonumber(redis.call('ZSCORE', waiting, uuid))
  else
    local state = redis.call('HMGET', entryKey(uuid), 't', 'a', 'p')
    if state[2] then
      redis.call('HSET', entryKey(uuid), 'l', now)
      out[#out + 1] = 0
      out[#out + 1] = tonumber(state[1])
    elseif state[3] then
      redis.call('HSET', entryKey(uuid), 'l', now)
      out[#out + 1] = -2
      out[#out + 1] = tonumber(state[1]) or 0
    else
      out[#out + 1] = -1
      out[#out + 1] = 0
    end
  end
end
return out
