-- Shared by the scripts of the store's events, after the queue store's prelude.lua. Keys, after the
-- store's prefix: `events`, a hash of v (version) and j (the events as JSON); `ev:<id>`, a hash of
-- the event's state (seed, after, open, drawn, announced); `ev:<id>:frozen`, the entrants frozen
-- at the opening; `ev:<id>:order`, the draw's uuids in order (single values, not lists: each is
-- written and read whole).
local function eventKey(id) return prefix .. 'ev:' .. id end
local function lastTicket() return redis.call('HGET', meta, 't') or '0' end
