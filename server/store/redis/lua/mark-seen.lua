-- args: now, uuid, now, uuid, …: polls answered from an instance's copy of the line, marked seen
-- late and together (see seen-marks.ts). XX: only places still waiting; GT: never back in time,
-- whichever instance marked them since.
for i = 1, #args, 400 do
  redis.call('ZADD', seen, 'XX', 'GT', unpack(args, i, math.min(i + 399, #args)))
end
return #args / 2
