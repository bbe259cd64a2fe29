-- args: ticket, ticket, … A part of a line split across shards counted for places of other parts
-- (`PartedLine.rank`), those asked together (`CallBatch`): returns {served here, then for each
-- ticket how many wait here with a smaller one}.
local out = {served()}
for i = 1, #args do
  out[#out + 1] = redis.call('ZCOUNT', waiting, '-inf', '(' .. args[i])
end
return out
