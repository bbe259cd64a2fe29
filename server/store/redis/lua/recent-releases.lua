-- No args. Returns {served, recent release times}, read together (see RecentReleases).
return {served(), redis.call('LRANGE', recent, 0, -1)}
