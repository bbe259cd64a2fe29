-- Adds one to a counter of a minute. KEYS: the minutes' hash of its hour. ARGV: the field
-- ("<minute>:<counter>"), the time to live (ms).
redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
