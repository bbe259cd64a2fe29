-- args: id, seed ('' for none). Keeps them and the last ticket once; with a seed, the line's next
-- ticket jumps past the draw's slots (`drawBase`), where the entrants move once keyed, and the
-- event is the line's latest draw (meta pq), which take-handoff.lua looks up until its opening.
-- Returns the state's fields.
local key = eventKey(args[1])
if redis.call('HEXISTS', key, 'after') == 0 then
  local after = lastTicket()
  redis.call('HSET', key, 'after', after)
  if args[2] ~= '' then
    redis.call('HSET', key, 'seed', args[2], 'sl', '1')
    redis.call('HSET', meta, 't', int(drawBase(tonumber(after))), 'pq', args[1])
    redis.call('HINCRBY', meta, 'sk', DRAW_SLOTS)
  end
end
return redis.call('HGETALL', key)
