-- No args. Returns the operator's message to those waiting: {version, its texts as JSON}, each
-- false when none was ever set (the texts: or since it was cleared).
return {redis.call('HGET', meta, 'mv'), redis.call('HGET', meta, 'mg')}
