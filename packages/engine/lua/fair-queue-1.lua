--[[
  Fair queueing of a concurrency key's runs (docs/architecture/flow-control.md#flow-control): a ZSET of the key's runs fired and not yet started, scored by
  when they joined, in microseconds, each strictly after the one before (so
  that runs joining in the same microsecond keep the order they joined in,
  which equal scores would leave to their runIds). A run's BullMQ priority
  is its place in its key's queue, so the n-th waiting run of every key goes
  before the (n+1)-th of any: round-robin across keys. Entries older than
  the horizon (runs cancelled or lost while queued) are dropped.

  KEYS[1] the key's queue ZSET
  ARGV[1] horizon, ms     ARGV[2..] runIds
  Returns each run's place (1-based: how many of the key's runs wait, it
  included, when it joined), in order.
]]
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
local horizonMs = tonumber(ARGV[1])
-- Scores are written with "%.0f": Lua would print a number of 16 digits with 14.
redis.call("ZREMRANGEBYSCORE", KEYS[1], "-inf", string.format("%.0f", now - horizonMs * 1000))
local last = redis.call("ZRANGE", KEYS[1], -1, -1, "WITHSCORES")[2]
local score = now
if last ~= nil and tonumber(last) >= score then score = tonumber(last) + 1 end
local places = {}
for index = 2, #ARGV do
  if redis.call("ZADD", KEYS[1], "NX", string.format("%.0f", score), ARGV[index]) == 1 then
    score = score + 1
    places[#places + 1] = redis.call("ZCARD", KEYS[1])
  else
    places[#places + 1] = redis.call("ZRANK", KEYS[1], ARGV[index]) + 1
  end
end
redis.call("PEXPIRE", KEYS[1], horizonMs)
return places
