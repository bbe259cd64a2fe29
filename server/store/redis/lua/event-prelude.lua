-- Shared by the scripts of the store's events, after the queue store's prelude.lua. Keys, after the
-- store's prefix: `events`, a hash of v (version) and j (the events as JSON); `ev:<id>`, a hash of
-- the event's state (seed, after, open, drawn, announced, sl once its pre-queue kept draw slots,
-- and the draw's marks: kc keyed, pc placed, pk the last draw key placed); `ev:<id>:keys`, the
-- entrants' draw keys until the draw is done (add-draw-keys.lua);
-- `ev:<id>:order`, the draw's uuids in order, a list appended by each step (the version before
-- kept it as one JSON value, and the entrants frozen at the opening as `ev:<id>:frozen`).
local function eventKey(id) return prefix .. 'ev:' .. id end
local function lastTicket() return redis.call('HGET', meta, 't') or '0' end

-- The refusal of a draw whose pre-queue began on a version that kept no draw slots (sl) for it.
local function withoutSlots(id)
  return redis.error_reply('ERR event ' .. id .. ' began its pre-queue on a version without draw slots: draw it on that version')
end

-- Moves the entrant of draw key `member` (key..uuid, kept in `keys`) from its arrival ticket to its
-- draw slot: the first of its key's group (the keys sharing its first 32 bits, a handful at most)
-- plus its rank in the group, whose members already in their slots move up one when it comes
-- before them (the last first, so that no two places ever share a slot). A place gone, moved ahead
-- with a code, or in its slot already stays as it is.
local function keyInPlace(keys, after, member)
  local uuid = string.sub(member, 65)
  local ticket = tonumber(redis.call('ZSCORE', waiting, uuid))
  if not ticket or ticket <= drawBase(after) then return end
  local bits = string.sub(member, 1, 8)
  local first = after + tonumber(bits, 16) * DRAW_GROUP + 1
  local group = redis.call('ZRANGEBYLEX', keys, '[' .. bits, '(' .. bits .. 'g', 'LIMIT', 0, DRAW_GROUP + 1)
  if #group > DRAW_GROUP then error('more than ' .. DRAW_GROUP .. ' draw keys begin with ' .. bits) end
  for i = #group, 1, -1 do
    local holder, slot = string.sub(group[i], 65), first + i - 1
    local at = holder == uuid and ticket or tonumber(redis.call('ZSCORE', waiting, holder))
    if at and at ~= slot and (holder == uuid or (at > after and at <= drawBase(after))) then
      redis.call('ZADD', waiting, 'XX', int(slot), holder)
      changed('>' .. int(slot) .. ':' .. holder)
    end
  end
end

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
