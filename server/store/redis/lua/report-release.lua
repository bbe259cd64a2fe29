-- Marks places released: ",releasedAt" after a row that has none yet. KEYS: the rows' hash of
-- their hour. ARGV: the release time, the time to live (ms), then the uuids.
for i = 3, #ARGV do
  local row = redis.call('HGET', KEYS[1], ARGV[i])
  if row and not string.find(row, '^[^,]*,[^,]*,[^,]*,') then redis.call('HSET', KEYS[1], ARGV[i], row .. ',' .. ARGV[1]) end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
