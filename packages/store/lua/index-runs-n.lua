--[[
  Brings runs of one shard in the shard's indexes up to date with their heads
  and, for each settled run given with its result, stores the result; then
  announces the runs whose results it stored, in one message. Each run is handled on its own, as if
  alone: one call does the work of a whole batch of the shard's stream.
  Atomic with the read of each head, whose status only moves forward (queued,
  running, then one settled status), so running it again, late, or out of
  order never moves a run backwards: it is idempotent. The index writes of
  the call's runs are gathered, so that each key gets one variadic ZREM and
  one ZADD for the whole call (a batch's runs mostly share theirs: active,
  succeeded, their agent's runs), all made before any result is stored, so
  whoever reads a result finds the run indexed. The caller acknowledges the
  shard entries a call applied once it answered (docs/architecture/collector.md).

  Input (n runs, n >= 1; every key in the shard's hash tag {sN}):
    KEYS[1] active runs     <p>:{sN}:index:status:active         ZSET (queued or running)
    KEYS[2] succeeded runs  <p>:{sN}:index:status:succeeded      ZSET
    KEYS[3] failed runs     <p>:{sN}:index:status:failed         ZSET
    KEYS[4] cancelled runs  <p>:{sN}:index:status:cancelled      ZSET
    KEYS[5] deadlines       <p>:{sN}:deadlines                   ZSET (score ms, member runId)
    for run i = 1 … n, at k = 5 + 5(i-1):
    KEYS[k+1] its head      <p>:{sN}:run:<runId>                 HASH (read only)
    KEYS[k+2] agent's runs  <p>:{sN}:index:agent:<agent>         ZSET
    KEYS[k+3] its result    <p>:{sN}:result:<runId>              STRING (JSON)
    KEYS[k+4] its children  <p>:{sN}:children:<runId>            ZSET (only given a TTL here)
    KEYS[k+5] tenant's runs <p>:{sN}:index:tenant:<tenant>       ZSET (untouched for a run
              without a tenant, whose key names the empty tenant)

    ARGV[1] the channel announcing the shard's settled runs (one message a
            call: the runIds whose results it stored, separated by spaces,
            then, when one result at least is at most ANNOUNCED_RESULT_BYTES
            long, " \n" and one line a runId, in order: its result as stored,
            or an empty line for a longer one)
    then, for each run i = 1 … n, in order:
      runId
      its result as JSON when it settled, or "" otherwise
      its other arguments as one, eight words separated by single spaces (a
        word may be empty, none holds a space; one argument, not eight: a
        client spends its work on each argument of a call), in this order:
        1. its index member: "<createdAt ms, 15 digits>:<runId>" (every index
           ZSET has score 0, so lexicographic order is creation order)
        2. its deadline in ms since the epoch, "" for none, or "?" when not
           known (a settled run whose run-queued the caller did not read)
        3. "1" when the caller's own earlier call indexed the run (answered 1
           for it) in the agent's runs and the tenant's runs, so that this one
           leaves those ZADDs out, or "" (then they are made: idempotent)
        4. "1" when the run has a tenant (KEYS[k+5] is its tenant's runs), or ""
        5. when its log and head expire, in ms since the epoch, as the append
           that settled it said (its shard entry's expiresAt), or "" when not
           known (then the head's PEXPIRETIME is read)
        6. "1" when the append that settled it moved it from the active runs
           to its status's runs and gave its children their expiry (its shard
           entry's moved), or ""; only with its result and its expiry
        7. the settled status its head holds, when the caller knows the head
           is there (the append that settled the run gave it an expiry far
           enough ahead), so that the head is not read; or "" (then its
           status is read)
        8. "1" when the append that settled it gave its children their expiry
           (its shard entry's childrenExpired: it does so without moving the
           run), so that the call leaves the children set be; or ""

  Output: an array of n integers, one per run:
     1  indexed under the head's status
     0  the run has no head (expired or unknown): its entries were removed,
        no result was stored

  Effects, per run (every ZADD and ZREM gathered per key, as said above):
    - moved by its settling append: no head read; ZADD member to the agent's
      runs and the tenant's runs (unless the caller said it indexed the run
      there already), the deadline left unless it has none (""), SET result
      NX PXAT the expiry given (none is stored past it: the run expired);
      always 1
    - otherwise, head present (its status given, or read): ZADD member to the agent's runs and the tenant's runs
      (unless the caller said it indexed the run there already); a settled run
      moves from active to its status's set and, unless it has no deadline
      (""), leaves the deadlines; a run not settled is in active and, with a
      deadline, in the deadlines
    - head settled and a result given: the run's children (a settled run
      spawns no more; unless its settling append gave them their expiry)
      and its result get the head's expiry time (the one
      given, which the settling append set on the head; else PEXPIRETIME:
      absolute, as a relative PTTL could land a millisecond past the head),
      so that they expire with its log whatever the retention its settling
      writer used; SET result NX (a result, once
      stored, never changes)
    - otherwise, head absent: ZREM member from every index above (the tenant's runs
      included) and runId from the deadlines
  Then, once for the call: PUBLISH on the channel of the runIds whose results
  were given and stored, with those results that are short enough (none: no
  PUBLISH; the space before the line break keeps the last runId a word of its
  own for a reader that only splits the message at spaces). There is no index
  of every run: `list` reads the union of the status indexes (an older
  collector's <p>:{sN}:index:runs is neither written nor read).
]]
local activeKey, deadlinesKey = KEYS[1], KEYS[5]
local settledKeys = { succeeded = KEYS[2], failed = KEYS[3], cancelled = KEYS[4] }
local channel = ARGV[1]
local count = (#KEYS - 5) / 5
local announced = {}
-- The result carried by the announcement of each run of `announced`, "" for one too long to carry.
local announcedResults = {}
local carriesResults = false
-- The most values one command of the call is given (members to ZREM, scores and members to ZADD).
local SLICE = 1000
-- The longest result an announcement carries: every subscriber of the channel receives it.
local ANNOUNCED_RESULT_BYTES = 1024

-- Counts runId among the runs the call's announcement names, with its result when short enough to carry.
local function announce(runId, result)
  announced[#announced + 1] = runId
  if #result <= ANNOUNCED_RESULT_BYTES then
    announcedResults[#announced] = result
    carriesResults = true
  else
    announcedResults[#announced] = ""
  end
end

-- The call's index writes, gathered so that each key gets one variadic ZREM and one ZADD for the
-- whole call (the runs of a batch mostly share their keys: active, a settled status, their agent),
-- made before any result is stored. A run is in one call once, so no member is both removed and added.
local removals, removalKeys = {}, {}
local additions, additionKeys = {}, {}
-- The results to store once the indexes are written: { resultKey, result, expiresAt or nil, childrenKey or nil }.
local stores = {}

local function gather(byKey, keys, key, ...)
  local list = byKey[key]
  if list == nil then
    list = {}
    byKey[key] = list
    keys[#keys + 1] = key
  end
  for _, value in ipairs({ ... }) do
    list[#list + 1] = value
  end
end

local function remove(key, member)
  gather(removals, removalKeys, key, member)
end

local function add(key, score, member)
  gather(additions, additionKeys, key, score, member)
end

local function listRun(agentKey, tenantKey, member, listed, tenanted)
  if listed ~= "1" then
    add(agentKey, 0, member)
    if tenanted == "1" then
      add(tenantKey, 0, member)
    end
  end
end

local function indexRun(headKey, agentKey, resultKey, childrenKey, tenantKey, runId, member, deadline, result,
    listed, tenanted, expiresAt, moved, knownStatus, childrenExpired)
  if moved == "1" and result ~= "" and expiresAt ~= "" then
    listRun(agentKey, tenantKey, member, listed, tenanted)
    if deadline ~= "" then
      remove(deadlinesKey, runId)
    end
    stores[#stores + 1] = { resultKey, result, expiresAt }
    announce(runId, result)
    return 1
  end
  local status = knownStatus
  if status == "" then
    status = redis.call("HGET", headKey, "status")
  end
  if not status then
    for _, key in ipairs({ activeKey, KEYS[2], KEYS[3], KEYS[4], agentKey }) do
      remove(key, member)
    end
    if tenanted == "1" then
      remove(tenantKey, member)
    end
    remove(deadlinesKey, runId)
    return 0
  end
  listRun(agentKey, tenantKey, member, listed, tenanted)
  local settledKey = settledKeys[status]
  if settledKey then
    remove(activeKey, member)
    add(settledKey, 0, member)
    if deadline ~= "" then
      remove(deadlinesKey, runId)
    end
    if result ~= "" then
      if expiresAt == "" then
        expiresAt = redis.call("PEXPIRETIME", headKey)
      else
        expiresAt = tonumber(expiresAt)
      end
      if expiresAt > 0 then
        stores[#stores + 1] = { resultKey, result, expiresAt, childrenExpired ~= "1" and childrenKey or nil }
      else
        stores[#stores + 1] = { resultKey, result }
      end
      announce(runId, result)
    end
  else
    add(activeKey, 0, member)
    if deadline ~= "" and deadline ~= "?" then
      add(deadlinesKey, deadline, runId)
    end
  end
  return 1
end

-- Calls `command` on `key` with `values`, in slices: unpack's arguments live on Lua's C stack,
-- which holds a few thousand (SLICE is even: a ZADD's score and member stay in one slice).
local function callInSlices(command, key, values)
  for first = 1, #values, SLICE do
    redis.call(command, key, unpack(values, first, math.min(first + SLICE - 1, #values)))
  end
end

local replies = {}
for i = 1, count do
  local k = 5 + 5 * (i - 1)
  local a = 2 + 3 * (i - 1)
  local result = ARGV[a + 1]
  local member, deadline, listed, tenanted, expiresAt, moved, status, childrenExpired =
    string.match(ARGV[a + 2], "^(%S*) (%S*) (%S*) (%S*) (%S*) (%S*) (%S*) (%S*)$")
  replies[i] = indexRun(KEYS[k + 1], KEYS[k + 2], KEYS[k + 3], KEYS[k + 4], KEYS[k + 5],
    ARGV[a], member, deadline, result, listed, tenanted, expiresAt, moved, status, childrenExpired)
end
-- The additions first: a ZADD is the call's first write whenever it adds, so a Redis out of
-- memory refuses the call before it writes anything (a script is refused only at its first
-- write, and ZREM is never refused).
for _, key in ipairs(additionKeys) do
  callInSlices("ZADD", key, additions[key])
end
for _, key in ipairs(removalKeys) do
  callInSlices("ZREM", key, removals[key])
end
for _, stored in ipairs(stores) do
  local resultKey, result, expiresAt, childrenKey = stored[1], stored[2], stored[3], stored[4]
  if childrenKey then
    redis.call("PEXPIREAT", childrenKey, expiresAt)
  end
  if expiresAt then
    redis.call("SET", resultKey, result, "NX", "PXAT", expiresAt)
  else
    redis.call("SET", resultKey, result, "NX")
  end
end
if #announced > 0 then
  local message = table.concat(announced, " ")
  if carriesResults then
    message = message .. " \n" .. table.concat(announcedResults, "\n")
  end
  redis.call("PUBLISH", channel, message)
end
return replies
