-- args: ticket. A part of a line split across shards counted for a place of another part
-- (`PartedLine.rank`): returns {how many wait here with a smaller ticket, served here}.
return {redis.call('ZCOUNT', waiting, '-inf', '(' .. args[1]), served()}
