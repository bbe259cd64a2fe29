-- args: key, uuid, sessionId, name, expiresAt, recordMs, now. Keeps a link to the session's place
-- (`<prefix>ho:<key>`: u uuid, s session, n name, x expires at; o the session that opened it, once
-- opened), kept recordMs past its expiry. Returns 1, or 0 and keeps nothing when the place is not
-- the session's, or neither waits nor is released with its held request not yet replayed.
local key, uuid, session, name, expiresAt, recordMs, now = args[1], args[2], args[3], args[4], args[5], tonumber(args[6]), tonumber(args[7])
local state = redis.call('HMGET', entryKey(uuid), 's', 't', 'p', 'x')
if state[1] ~= session or state[3] or state[4] or tonumber(state[2] or '0') == 0 then return 0 end
local link = prefix .. 'ho:' .. key
redis.call('HSET', link, 'u', uuid, 's', session, 'n', name, 'x', expiresAt)
-- Kept for a duration from the caller's clock, which the store follows (Redis's may differ).
redis.call('PEXPIRE', link, int(math.max(1, tonumber(expiresAt) - now + recordMs)))
return 1
