-- Marks a released place's row replayed (",1" after its release) and counts the replay. KEYS: the
-- rows' hash of its hour, the minutes' hash of the replay's hour. ARGV: the uuid, the minute's
-- counter field, the time to live (ms).
local row = redis.call('HGET', KEYS[1], ARGV[1])
if row and string.find(row, '^[^,]*,[^,]*,[^,]*,[^,]*$') then
  redis.call('HSET', KEYS[1], ARGV[1], row .. ',1')
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
redis.call('HINCRBY', KEYS[2], ARGV[2], 1)
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return 1
