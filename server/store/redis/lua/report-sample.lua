-- A sample of the line in its minute ("served,rate,longest"): the minute's first keeps served and
-- rate, every one raises longest. KEYS: the minutes' hash of its hour. ARGV: the minute, served,
-- rate, waiting, the time to live (ms).
local kept = redis.call('HGET', KEYS[1], ARGV[1])
if not kept then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ',' .. ARGV[3] .. ',' .. ARGV[4])
else
  local served, rate, longest = string.match(kept, '^([^,]*),([^,]*),([^,]*)$')
  if tonumber(ARGV[4]) > tonumber(longest) then redis.call('HSET', KEYS[1], ARGV[1], served .. ',' .. rate .. ',' .. ARGV[4]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
