--[[
  Asked before each model request of a run that counts against budgets
  (docs/architecture/budgets.md#budgets): may it make the request? Not when a
  scope ran out of tokens, dollars or steps; and a run not yet admitted (its
  first request) is admitted only while every scope with a runs limit has
  room, which counts it in each.

  Input:
    KEYS[1] the tree's budget  <p>:{sN}:budget:<treeRunId>  HASH (N the tree root's shard)

    ARGV[1] the runId
    ARGV[2] the key's TTL in ms (set when the run is admitted)
    ARGV[3] how many scopes follow (S), then S groups of five:
            scope runId, tokens limit, nano-dollars limit, steps limit, runs limit
            ("" for a dimension the scope does not limit)

  Fields: as debit-budget-1.lua, and admitted:<runId> (1 once admitted).

  Output:
    { 0 }                        go ahead
    { 1, scope, dimension }      the scope ran out of `dimension` (tokens, nanoUsd, steps)
    { 2, scope, "runs" }         the run is not admitted: the scope's runs are all taken

  Effects: only when a run is admitted: HSET admitted:<runId>, HINCRBY of
  each scope's runs, PEXPIRE.
]]
local budgetKey = KEYS[1]
local runId, ttlMs = ARGV[1], ARGV[2]
local scopeCount = tonumber(ARGV[3])
local dimensions = { "tokens", "nanoUsd", "steps" }

for s = 0, scopeCount - 1 do
  local base = 4 + s * 5
  local scope = ARGV[base]
  for d = 1, 3 do
    local limit = ARGV[base + d]
    if limit ~= "" then
      local spent = tonumber(redis.call("HGET", budgetKey, scope .. ":" .. dimensions[d]) or "0")
      if spent >= tonumber(limit) then
        return { 1, scope, dimensions[d] }
      end
    end
  end
end

local admittedField = "admitted:" .. runId
if redis.call("HEXISTS", budgetKey, admittedField) == 1 then
  return { 0 }
end
for s = 0, scopeCount - 1 do
  local base = 4 + s * 5
  local limit = ARGV[base + 4]
  if limit ~= "" then
    local runs = tonumber(redis.call("HGET", budgetKey, ARGV[base] .. ":runs") or "0")
    if runs >= tonumber(limit) then
      return { 2, ARGV[base], "runs" }
    end
  end
end
redis.call("HSET", budgetKey, admittedField, 1)
for s = 0, scopeCount - 1 do
  redis.call("HINCRBY", budgetKey, ARGV[4 + s * 5] .. ":runs", 1)
end
redis.call("PEXPIRE", budgetKey, ttlMs)
return { 0 }
