--[[
  Takes (or renews) the concurrency leases of one run, all or none
  (docs/architecture/flow-control.md#flow-control). Each lease set is a ZSET of the
  runs holding one of its slots, scored with the instant (ms, Redis' clock)
  their lease lapses: lapsed leases are dropped first, so a crashed worker's
  slot comes back once its lease lapses.

  KEYS[i]     a lease set (every key shares the `{flow}` hash tag)
  ARGV[1]     runId
  ARGV[2]     lease duration, ms
  ARGV[2 + i] the limit of KEYS[i]

  Returns 0 when the run holds every lease now, else the index (1-based) of
  the first set whose limit is reached (nothing taken).
]]
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local runId = ARGV[1]
local leaseMs = tonumber(ARGV[2])

for index, key in ipairs(KEYS) do
  redis.call("ZREMRANGEBYSCORE", key, "-inf", now)
  local held = redis.call("ZSCORE", key, runId)
  if not held and redis.call("ZCARD", key) >= tonumber(ARGV[2 + index]) then
    return index
  end
end
for _, key in ipairs(KEYS) do
  redis.call("ZADD", key, now + leaseMs, runId)
  redis.call("PEXPIRE", key, leaseMs)
end
return 0
