-- args: after, epoch, now, newEpoch, limit. The revocation feed after sequence number `after` of
-- epoch `epoch` (another epoch: from the start): {epoch, last sequence read, more (1/0),
-- {session, end (s), ...}} for the revocations whose admissions have not ended at now.
local after, now, limit = tonumber(args[1]), tonumber(args[3]), tonumber(args[5])
forgetRevocations(now)
redis.call('HSETNX', meta, 're', args[4])
local epoch = redis.call('HGET', meta, 're')
if epoch ~= args[2] then after = 0 end
local sequence = tonumber(redis.call('HGET', meta, 'rs') or '0')
local found = redis.call('ZRANGEBYSCORE', revokedLog, '(' .. int(after), '+inf', 'WITHSCORES', 'LIMIT', 0, limit + 1)
local out, last, more = {}, sequence, 0
for i = 1, #found, 2 do
  if (i + 1) / 2 > limit then
    more = 1
    break
  end
  local ends = redis.call('HGET', revokedEnds, found[i])
  if ends and tonumber(ends) * 1000 > now then
    out[#out + 1] = found[i]
    out[#out + 1] = ends
  end
  last = tonumber(found[i + 1])
end
if more == 0 then last = sequence end
return {epoch, last, more, out}
