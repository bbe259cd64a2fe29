-- No args. The whole line for an instance's copy of it (line-copy.ts), read in one step with the
-- log's place: {version, served, the log's last entry id ('0-0' when empty), {uuid, ticket, …}}.
local last = redis.call('XREVRANGE', log, '+', '-', 'COUNT', 1)
local version = tonumber(redis.call('HGET', meta, 'v') or '0')
return {version, served(), last[1] and last[1][1] or '0-0', redis.call('ZRANGE', waiting, 0, -1, 'WITHSCORES')}
