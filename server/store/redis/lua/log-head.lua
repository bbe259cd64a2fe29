-- No args. Where an instance's copy of the line starts following the log (line-copy.ts), read in
-- one step: {the line's version, served, the log's last entry id ('0-0' when empty)}. The line
-- itself is read after it in pages (O(log n) and a page each), never whole in one call.
local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
local version = tonumber(redis.call('HGET', meta, 'v') or '0')
return {version, served(), last[1] and last[1][1] or '0-0'}
