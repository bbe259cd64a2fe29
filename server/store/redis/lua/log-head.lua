-- No args. Where an instance's copy of the line starts following the log (line-copy.ts), read in
-- one step: {the line's version, served, the log's last entry id ('0-0' when empty), the head's
-- ticket, the last ticket given}. The line itself is then read in pages by ticket, between those
-- two (every place that enters later has a larger ticket, and reaches the copy by the log).
local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
local version = tonumber(redis.call('HGET', meta, 'v') or '0')
local head = redis.call('ZRANGE', waiting, 0, 0, 'WITHSCORES')
local lastTicket = tonumber(redis.call('HGET', meta, 't') or '0')
return {version, served(), last[1] and last[1][1] or '0-0', head[2] and tonumber(head[2]) or lastTicket + 1, lastTicket}
