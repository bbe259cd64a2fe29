-- Shared by the scripts of the store's events, after the queue store's prelude.lua. Keys, after the
-- store's prefix: `events`, a hash of v (version) and j (the events as JSON); `ev:<id>`, a hash of
-- the event's state (seed, after, open, drawn, announced, and the draw's marks: kc keyed, pc
-- placed, pk the last draw key placed); `ev:<id>:keys`, the entrants' draw keys until the draw is
-- done (add-draw-keys.lua);
-- `ev:<id>:order`, the draw's uuids in order, a list appended by each step (the version before
-- kept it as one JSON value, and the entrants frozen at the opening as `ev:<id>:frozen`).
local function eventKey(id) return prefix .. 'ev:' .. id end
local function lastTicket() return redis.call('HGET', meta, 't') or '0' end

-- Frozen entrants when there are none (cjson would write an empty table as an object).
local NO_ENTRANTS = '[[],[]]'

-- The entrants kept under `key` as JSON. The version before kept them comma-separated (`uuid,…`
-- drawn, `uuid:ticket,…` frozen): such a value is answered as JSON all the same.
local function storedEntrants(key, frozen)
  local value = redis.call('GET', key)
  if not value or value == '' then return frozen and NO_ENTRANTS or '[]' end
  if string.sub(value, 1, 1) == '[' then return value end
  local uuids, tickets = {}, {}
  for item in string.gmatch(value, '[^,]+') do
    if frozen then
      local uuid, ticket = string.match(item, '^(.+):(%d+)$')
      uuids[#uuids + 1] = uuid
      tickets[#tickets + 1] = tonumber(ticket)
    else
      uuids[#uuids + 1] = item
    end
  end
  if #uuids == 0 then return frozen and NO_ENTRANTS or '[]' end
  return cjson.encode(frozen and {uuids, tickets} or uuids)
end
