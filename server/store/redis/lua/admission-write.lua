-- Writes the record only over the version read. KEYS: the record's hash (v: version, s: the
-- record as JSON). ARGV: the version read, the next record. Returns 1 when written.
local version = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if version ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', version + 1, 's', ARGV[2])
return 1
