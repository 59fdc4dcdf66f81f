--[[
  One request of an access key against its budget of requests a minute
  (docs/architecture/redis-layout.md#access-keys): a bucket holding at most
  `rpm` requests, refilled at `rpm` a minute, on Redis' clock (the same for
  every process that admits the key's requests).

  KEYS[1] the key's bucket HASH (tokens, at), expiring once idle a minute
  ARGV[1] rpm: the budget, a positive integer
  Returns 0 when the request is admitted (one token taken), else the ms
  until the bucket holds a whole token again.
]]
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local rpm = tonumber(ARGV[1])
local state = redis.call("HMGET", KEYS[1], "tokens", "at")
local elapsed = math.max(0, now - (tonumber(state[2]) or now))
local tokens = math.min(rpm, (tonumber(state[1]) or rpm) + elapsed * rpm / 60000)
if tokens < 1 then return math.max(1, math.ceil((1 - tokens) * 60000 / rpm)) end
redis.call("HSET", KEYS[1], "tokens", tostring(tokens - 1), "at", now)
redis.call("PEXPIRE", KEYS[1], 60000)
return 0
