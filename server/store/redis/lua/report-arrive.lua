-- A place's arrival in the report, once. KEYS: the rows' hash of its hour. ARGV: the uuid, the
-- row ("arrivedAt,lineNumber,estimate"), the time to live (ms).
redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
