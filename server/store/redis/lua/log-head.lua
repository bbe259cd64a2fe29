-- args: pageSize. Where an instance's copy of the line starts following the log (line-copy.ts),
-- read in one step: {the line's version, served, the log's last entry id ('0-0' when empty), the
-- first ticket without a code, the last ticket given, the code holders as uuid, ticket, ..., the
-- pages' last tickets}. The rest of the line is then read in pages by ticket, between those two
-- (every place that enters later has a larger ticket, and reaches the copy by the log), each page
-- up to the ticket that had its last place here: tickets may leave gaps (a draw's slots), so pages
-- are cut by rank, each rank O(log n). Code holders are few (one a code used), so they come whole.
local pageSize = tonumber(args[1])
local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
local version = tonumber(redis.call('HGET', meta, 'v') or '0')
local head = redis.call('ZRANGEBYSCORE', waiting, 1, '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
local lastTicket = tonumber(redis.call('HGET', meta, 't') or '0')
local ahead = redis.call('ZRANGEBYSCORE', waiting, '-inf', '(0', 'WITHSCORES')
local ends = {}
for rank = #ahead / 2 + pageSize - 1, redis.call('ZCARD', waiting) - 2, pageSize do
  ends[#ends + 1] = tonumber(redis.call('ZRANGE', waiting, rank, rank, 'WITHSCORES')[2])
end
return {version, served(), last[1] and last[1][1] or '0-0', head[2] and tonumber(head[2]) or lastTicket + 1, lastTicket, ahead, ends}
