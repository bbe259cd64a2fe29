-- Places' arrivals in the report, each once. KEYS: the rows' hash of their hour. ARGV: the time to
-- live (ms), then for each place its uuid and its row ("arrivedAt,lineNumber,estimate").
for i = 2, #ARGV, 2 do
  redis.call('HSETNX', KEYS[1], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
