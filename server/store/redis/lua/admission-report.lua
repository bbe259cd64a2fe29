-- Adds field/value pairs to a step's counts, and lets the counts expire once no window reads
-- them. KEYS: the step's hash. ARGV: its time to live (ms), then field, value, field, value…
for i = 2, #ARGV, 2 do redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
