-- args: active limit, releases a minute: a number sets it, '-' clears it, '' leaves it. Returns
-- what `limits` returns, after the change.
for i, field in ipairs({'la', 'lr'}) do
  if args[i] == '-' then redis.call('HDEL', meta, field)
  elseif args[i] ~= '' then redis.call('HSET', meta, field, args[i]) end
end
return redis.call('HMGET', meta, 'la', 'lr')
