--[[
  Debits model responses of one run from every budget the run counts against
  (docs/architecture/budgets.md#budgets), once each: the run's steps at or below
  its high-water mark were debited before (by this attempt or an earlier
  one) and are skipped, so a step debited, then debited again after a crash,
  counts once.

  Input:
    KEYS[1] the tree's budget  <p>:{sN}:budget:<treeRunId>  HASH (N the tree root's shard)

    ARGV[1] the runId
    ARGV[2] the key's TTL in ms (set again on every call that debits)
    ARGV[3] how many scopes follow (S), then S groups of five:
            scope runId, tokens limit, nano-dollars limit, steps limit, runs limit
            ("" for a dimension the scope does not limit)
    then    groups of three, in step order: step, tokens, nano-dollars

  Fields:
    debited:<runId>         the highest step of the run debited
    <scope>:tokens|nanoUsd|steps|runs   what the scope's tree spent
    <scope>:exhausted       the first dimension that ran out (set once)

  Output: an array: the number of steps debited, then, for each scope this
  call exhausted, its runId and the dimension that ran out.

  Effects: HINCRBY of each scope's tokens, nanoUsd and steps; HSET of
  debited:<runId> and of the exhausted scopes' flag; PEXPIRE. Nothing when
  every step was debited before.
]]
local budgetKey = KEYS[1]
local runId, ttlMs = ARGV[1], ARGV[2]
local scopeCount = tonumber(ARGV[3])
local stepsFrom = 4 + scopeCount * 5

local debitedField = "debited:" .. runId
local highWater = tonumber(redis.call("HGET", budgetKey, debitedField) or "0")
local tokens, nanoUsd, steps, lastStep = 0, 0, 0, highWater
for i = stepsFrom, #ARGV, 3 do
  local step = tonumber(ARGV[i])
  if step > lastStep then
    tokens = tokens + tonumber(ARGV[i + 1])
    nanoUsd = nanoUsd + tonumber(ARGV[i + 2])
    steps = steps + 1
    lastStep = step
  end
end
if steps == 0 then
  return { 0 }
end

redis.call("HSET", budgetKey, debitedField, lastStep)
local reply = { steps }
local dimensions = { "tokens", "nanoUsd", "steps" }
for s = 0, scopeCount - 1 do
  local base = 4 + s * 5
  local scope = ARGV[base]
  local spent = {
    redis.call("HINCRBY", budgetKey, scope .. ":tokens", tokens),
    redis.call("HINCRBY", budgetKey, scope .. ":nanoUsd", nanoUsd),
    redis.call("HINCRBY", budgetKey, scope .. ":steps", steps),
  }
  for d = 1, 3 do
    local limit = ARGV[base + d]
    if limit ~= "" and spent[d] >= tonumber(limit) then
      if redis.call("HSETNX", budgetKey, scope .. ":exhausted", dimensions[d]) == 1 then
        reply[#reply + 1] = scope
        reply[#reply + 1] = dimensions[d]
      end
    end
  end
end
redis.call("PEXPIRE", budgetKey, ttlMs)
return reply
