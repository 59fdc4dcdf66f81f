--[[
  Brings one run's entries in its shard's indexes up to date with its head
  and, for a settled run, stores its result and announces it. Atomic with the
  read of the head, whose status only moves forward (queued, running, then
  one settled status), so running it again, late, or out of order never
  moves a run backwards: it is idempotent. The result is written after the
  indexes, so whoever reads a result finds the run indexed.

  Input:
    KEYS[1] run head        <p>:{sN}:run:<runId>                 HASH (read only)
    KEYS[2] runs            <p>:{sN}:index:runs                  ZSET
    KEYS[3] active runs     <p>:{sN}:index:status:active         ZSET (queued or running)
    KEYS[4] succeeded runs  <p>:{sN}:index:status:succeeded      ZSET
    KEYS[5] failed runs     <p>:{sN}:index:status:failed         ZSET
    KEYS[6] cancelled runs  <p>:{sN}:index:status:cancelled      ZSET
    KEYS[7] agent's runs    <p>:{sN}:index:agent:<agent>         ZSET
    KEYS[8] deadlines       <p>:{sN}:deadlines                   ZSET (score ms, member runId)
    KEYS[9] result          <p>:{sN}:result:<runId>              STRING (JSON)

    ARGV[1] runId
    ARGV[2] the run's index member: "<createdAt ms, 15 digits>:<runId>" (every
            index ZSET has score 0, so lexicographic order is creation order)
    ARGV[3] the run's deadline in ms since the epoch, or "" for none
    ARGV[4] the settled run's result as JSON, or "" for a run not settled
    ARGV[5] retention in seconds: the result's TTL
    ARGV[6] the channel announcing the shard's settled runs

  Output:
     1  indexed under the head's status
     0  the run has no head (expired or unknown): its entries were removed,
        no result was stored

  Effects:
    - head present: ZADD member to runs and the agent's runs; a settled run
      moves from active to its status's set and leaves the deadlines; a run
      not settled is in active and, with a deadline, in the deadlines
    - head settled and a result given: SET result NX EX retention (a result,
      once stored, never changes), then PUBLISH runId on the channel
    - head absent: ZREM member from every index above and runId from the deadlines
]]
local headKey, runsKey, activeKey = KEYS[1], KEYS[2], KEYS[3]
local settledKeys = { succeeded = KEYS[4], failed = KEYS[5], cancelled = KEYS[6] }
local agentKey, deadlinesKey, resultKey = KEYS[7], KEYS[8], KEYS[9]
local runId, member, deadline = ARGV[1], ARGV[2], ARGV[3]
local result, retention, channel = ARGV[4], ARGV[5], ARGV[6]

local status = redis.call("HGET", headKey, "status")
if not status then
  for _, key in ipairs({ runsKey, activeKey, KEYS[4], KEYS[5], KEYS[6], agentKey }) do
    redis.call("ZREM", key, member)
  end
  redis.call("ZREM", deadlinesKey, runId)
  return 0
end

redis.call("ZADD", runsKey, 0, member)
redis.call("ZADD", agentKey, 0, member)
local settledKey = settledKeys[status]
if settledKey then
  redis.call("ZREM", activeKey, member)
  redis.call("ZADD", settledKey, 0, member)
  redis.call("ZREM", deadlinesKey, runId)
  if result ~= "" then
    redis.call("SET", resultKey, result, "NX", "EX", retention)
    redis.call("PUBLISH", channel, runId)
  end
else
  redis.call("ZADD", activeKey, 0, member)
  if deadline ~= "" then
    redis.call("ZADD", deadlinesKey, deadline, runId)
  end
end
return 1
