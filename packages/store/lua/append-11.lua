--[[
  Appends a batch of events to one run's log, fenced by the expected seq.
  One call appends any number of events, atomically: every refusal is decided
  before the first write, so a refused call writes nothing; once it has
  written, nothing it runs can be refused (ids and types are checked first, and
  Redis refuses a script for memory only before its first write). Every
  command it runs is outside Redis' @dangerous category and allowed by the
  least-privilege ACL errand ships (infra/redis-acl.conf).

  Input:
    KEYS[1] run log       <p>:{sN}:run:<runId>:log     STREAM
    KEYS[2] run head      <p>:{sN}:run:<runId>         HASH
    KEYS[3] shard stream  <p>:{sN}:events              STREAM
    KEYS[4] run blobs     <p>:{sN}:run:<runId>:blobs   HASH (only given a TTL here)
    KEYS[5] log rewrite   <p>:{sN}:run:<runId>:log:rewrite  STREAM, only ever within
            a call: the settled log is copied there and renamed back over the log
    KEYS[6] active runs   <p>:{sN}:index:status:active      ZSET (score 0, member: word 5 of ARGV[2])
    KEYS[7] deadlines     <p>:{sN}:deadlines                ZSET (score ms, member runId)
    KEYS[8] agent's runs  <p>:{sN}:index:agent:<agent>      ZSET (the empty agent's key,
            untouched, for a batch that does not open a run)
    KEYS[9] tenant's runs <p>:{sN}:index:tenant:<tenant>    ZSET (untouched for a run
            without a tenant, whose key names the empty tenant)
    KEYS[10] its children <p>:{sN}:children:<runId>       ZSET (only given a TTL here)
    KEYS[11] idempotency  <p>:{sN}:idempotency:<digest of the key>  STRING, the runId
            fired under the key; given only with a run-queued fired with a key
            (the runId is placed on the key's shard, so both share one slot)

    ARGV[1] runId
    ARGV[2] the call's fixed arguments, as seven words separated by single
            spaces (a word may be empty, none holds a space), in this order:
      1. expected seq: the head's seq the writer last saw (0 for a new run),
         or "*" for an unfenced append (cancel-requested from a client, the reaper)
      2. when the log, head and blobs keys expire if the batch settles the
         run: ms since the epoch (the writer's clock plus its retention)
      3. how long the idempotency key is kept, in ms ("0" without KEYS[11])
      4. "1": a batch of several events is one log entry (the per-append
         shape below); "": one log entry per event (the shape writers
         older than it write, and the only one their readers read)
      5. the run's index member, "<createdAt ms, 15 digits>:<runId>", for a
         batch opening a run, which then indexes it as queued; "" otherwise
      6. the opened run's deadline, ms since the epoch, or "" for none
      7. ms since the epoch from which on every process flags a run's blobs
         and children in its head (hasBlobs, hasChildren: put-blob-2.lua and
         the linking of a child): a run created at or after it without a
         flag has no such key, and its settling batch leaves that key be;
         "" when no flag is trusted (every key is given its expiry: the
         first step of the upgrade, docs/architecture/redis-layout.md)
      One argument, not seven: a client spends its work on each argument
      of a call (ioredis writes each with its own length).
    ARGV[3 + 3(i-1)] type of event i      (i = 1 … n, n >= 1)
    ARGV[4 + 3(i-1)] at of event i        (ISO-8601)
    ARGV[5 + 3(i-1)] data of event i      (JSON object, validated by the client)

  Output: { code, seq, index } (and the runId for -7)
     0  appended:                 seq = the new head seq (event i got seq - n + i)
    -1  seq conflict:             seq = the head's current seq
    -2  run settled: an event after a terminal one (also within this batch),
                                  seq = current seq, index = the refused event
    -3  output already recorded: a second output-recorded, index = the refused event
    -4  run not found: no head and the first event is not run-queued
    -5  run exists: run-queued on a run that has a head (seq = the head's
        seq), or not first in the batch, index = the refused event; a batch
        opening a run reads no head: its first XADD (the log's entry 0-1)
        is refused on a run that has a log, and nothing is written
    -6  malformed arguments (expiry, expected seq, deadline, event count, data JSON,
        an idempotency key without its TTL or its run-queued)
    -7  duplicate: the idempotency key names a run fired within its TTL:
        { -7, 0, 0, that runId }; nothing is written

  Effects (code 0 only):
    - the run log: a batch of one event, a batch opening the run, or every
      batch without word 4 of ARGV[2], as one XADD per event, entry id "0-<seq>", fields: seq, type, at, data;
      a batch of several events with word 4 of ARGV[2] as one XADD, entry id
      "0-<seq of its last event>", fields: seq (of its first event), events
      (the JSON array below)
    - one XADD to the shard stream for the whole batch (but a quiet opening,
      below), id "*", fields: runId,
      seq (of the batch's first event), events (a JSON array with one
      [type, at, data] per event, data as given), queued (only for the first
      batch after a quiet opening, below), and, when the batch settles
      the run, expiresAt (word 2 of ARGV[2]: the collector gives the result the same
      expiry without asking Redis for the head's), and childrenExpired=1 when
      this batch gave the run's children their expiry (below); the run's
      move between the status indexes is the collector's, gathered for a
      whole batch of runs (docs/architecture/collector.md)
    - HSET on the head: seq, updatedAt, and what the events change, as the fold
      does: run-queued sets agent, rootRunId (only when not the run itself),
      parentRunId, depth, priority, concurrencyKey, tenant (only when it has
      one), hasSchema=1 (only when it has a schema), attempt=0, createdAt,
      status=queued; run-started sets status=running,
      attempt (the highest seen), startedAt (the first); output-recorded sets
      hasOutput=1; cancel-requested sets cancelRequested=1 (an absent flag is
      0, and the runId is the key's: readers fill them in, `decodeHead`); finished sets
      status=succeeded (failed when the run has a schema and no output),
      failed sets status=failed, cancelled sets status=cancelled; the three
      terminal events set settledAt
    - a batch opening a run that it does not settle, given its member:
      ZADD member to the active runs, the agent's runs and (with a tenant)
      the tenant's runs, and with a deadline ZADD runId to the deadlines, so
      that its shard entry says "indexed" (field indexed=1) and the
      collector writes nothing for it (docs/architecture/collector.md)
    - a quiet opening: a batch of its run-queued alone that indexes the run
      (above), with no deadline and no budget (the head holds neither), writes
      no shard entry and sets quietOpening=1 on the head; the batch after it
      (the head's seq 1 and quietOpening=1, whichever writer appends it) adds
      to its shard entry queued: a JSON object of the head's agent,
      rootRunId (the runId when the head has none), parentRunId and tenant
      (when it has them), depth, hasSchema (true/false) and createdAt, from
      which the collector folds the run as if it had read its run-queued
      (docs/architecture/collector.md#quiet-openings)
    - with an idempotency key: SET it to the runId, PX its TTL
    - on a terminal event: PEXPIREAT(word 2 of ARGV[2]) on the run log and head, and on
      the blobs unless the head says the run has none (word 7 of ARGV[2]); then, for a
      run it did not open, PEXPIREAT(word 2 of ARGV[2]) on its children unless the head
      says it has none (word 7 of ARGV[2]; a createdAt of another shape than writers
      give it, YYYY-MM-DDTHH:MM:SS.sssZ, trusts no flag), and its shard entry
      says childrenExpired=1; then
      the run log is rewritten at its exact size (COPY to the rewrite key,
      then RENAME it over the log: same entries, same last id, same TTL;
      Redis 7 gives a stream's first node 4 KiB up front, a copy holds only
      what is used, and a settled log never grows again)
    - a batch opening a child run (its run-queued has a parentRunId) that it
      does not settle: the run log rewritten at its exact size alike (about
      0.6 KiB instead of 4.3 KiB while the child waits for a worker: a
      fan-out's children wait queued by the thousand)
]]
local logKey, headKey, shardKey, blobsKey, rewriteKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local activeKey, deadlinesKey, agentRunsKey, tenantRunsKey = KEYS[6], KEYS[7], KEYS[8], KEYS[9]
local childrenKey, idempotencyKey = KEYS[10], KEYS[11]
local OK, SEQ_CONFLICT, SETTLED, OUTPUT_RECORDED, NOT_FOUND, EXISTS, MALFORMED, DUPLICATE =
  0, -1, -2, -3, -4, -5, -6, -7

local runId = ARGV[1]
local expected, expiresAtText, idempotencyTtlText, perAppend, member, deadline, flagsSinceText =
  string.match(ARGV[2] or "", "^(%S*) (%S*) (%S*) (%S*) (%S*) (%S*) (%S*)$")
if expected == nil then
  return { MALFORMED, 0, 0 }
end
local expiresAt = tonumber(expiresAtText)
local idempotencyTtl = tonumber(idempotencyTtlText)
local entryPerAppend = perAppend == "1"
local flagsSince = tonumber(flagsSinceText)
local count = (#ARGV - 2) / 3

local deadlineMs = tonumber(deadline)
if expiresAt == nil or expiresAt < 1 or expiresAt ~= math.floor(expiresAt)
  or count < 1 or count ~= math.floor(count)
  or (deadline ~= "" and (deadlineMs == nil or deadlineMs ~= math.floor(deadlineMs)))
  or (flagsSinceText ~= "" and flagsSince == nil) then
  return { MALFORMED, 0, 0 }
end

if idempotencyKey then
  if ARGV[3] ~= "run-queued" or idempotencyTtl == nil or idempotencyTtl < 1
    or idempotencyTtl ~= math.floor(idempotencyTtl) then
    return { MALFORMED, 0, 0 }
  end
  local fired = redis.call("GET", idempotencyKey)
  if fired then
    return { DUPLICATE, 0, 0, fired }
  end
end

-- A batch opening a run reads no head: its first write, the XADD of its log's
-- entry 0-1, fails on a run that has a log (every run with a head has one),
-- and the call then answers "run exists" having written nothing.
local opening = ARGV[3] == "run-queued"
local head = opening and {}
  or redis.call("HMGET", headKey, "seq", "status", "hasOutput", "hasSchema", "attempt", "startedAt",
    "createdAt", "hasBlobs", "hasChildren", "quietOpening", "agent", "rootRunId", "parentRunId",
    "tenant", "depth")
local exists = head[1] ~= nil and head[1] ~= false
local seq = exists and tonumber(head[1]) or 0
local status = head[2]
local hasOutput = head[3] == "1"
local hasSchema = head[4] == "1"
local attempt = tonumber(head[5] or "0") or 0
local startedAt = head[6]

local function eventAt(i, offset)
  return ARGV[2 + 3 * (i - 1) + offset]
end

local firstType = eventAt(1, 1)
if not exists and firstType ~= "run-queued" then
  return { NOT_FOUND, 0, 1 }
end
if exists and firstType == "run-queued" then
  return { EXISTS, seq, 1 }
end
if expected ~= "*" then
  local expectedSeq = tonumber(expected)
  if expectedSeq == nil then
    return { MALFORMED, seq, 0 }
  end
  if expectedSeq ~= seq then
    return { SEQ_CONFLICT, seq, 0 }
  end
end

local settledStatuses = { succeeded = true, failed = true, cancelled = true }
local updates = {}
local settles = false
local openingData = nil

local function decode(json)
  local ok, value = pcall(cjson.decode, json)
  if ok and type(value) == "table" then
    return value
  end
  return nil
end

-- Decide everything first: nothing is written unless every event is accepted.
for i = 1, count do
  local eventType, at = eventAt(i, 1), eventAt(i, 2)
  if settledStatuses[status] then
    return { SETTLED, seq, i }
  end
  if eventType == "run-queued" then
    if i > 1 then
      return { EXISTS, seq, i }
    end
    local data = decode(eventAt(i, 3))
    if data == nil then
      return { MALFORMED, seq, i }
    end
    openingData = data
    hasSchema = data.outputSchema ~= nil and data.outputSchema ~= cjson.null
    status = "queued"
    updates.agent = tostring(data.agent)
    if tostring(data.rootRunId) ~= runId then
      updates.rootRunId = tostring(data.rootRunId)
    end
    updates.depth = tostring(data.depth)
    if type(data.parentRunId) == "string" then
      updates.parentRunId = data.parentRunId
    end
    if type(data.priority) == "number" then
      updates.priority = tostring(data.priority)
    end
    if type(data.concurrencyKey) == "string" then
      updates.concurrencyKey = data.concurrencyKey
    end
    if type(data.tenant) == "string" then
      updates.tenant = data.tenant
    end
    if hasSchema then
      updates.hasSchema = "1"
    end
    updates.attempt = "0"
    updates.createdAt = at
  elseif eventType == "run-started" then
    local data = decode(eventAt(i, 3))
    if data == nil or type(data.attempt) ~= "number" then
      return { MALFORMED, seq, i }
    end
    status = "running"
    if data.attempt > attempt then
      attempt = data.attempt
    end
    updates.attempt = tostring(attempt)
    if not startedAt then
      startedAt = at
      updates.startedAt = at
    end
  elseif eventType == "output-recorded" then
    if hasOutput then
      return { OUTPUT_RECORDED, seq, i }
    end
    hasOutput = true
    updates.hasOutput = "1"
  elseif eventType == "cancel-requested" then
    updates.cancelRequested = "1"
  elseif eventType == "finished" then
    if hasSchema and not hasOutput then
      status = "failed"
    else
      status = "succeeded"
    end
  elseif eventType == "failed" then
    status = "failed"
  elseif eventType == "cancelled" then
    status = "cancelled"
  end
  if settledStatuses[status] then
    settles = true
    updates.settledAt = at
  end
  updates.updatedAt = at
end

local DAYS_IN_MONTH = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 }

-- ms since the epoch of an instant written as writers write one (Date's
-- toISOString: YYYY-MM-DDTHH:MM:SS.sssZ), as Date.parse reads it; nil for any
-- other shape or a day that does not exist (Date.parse reads those otherwise).
local function isoMs(text)
  local y, mo, d, h, mi, s, ms =
    string.match(text or "", "^(%d%d%d%d)%-(%d%d)%-(%d%d)T(%d%d):(%d%d):(%d%d)%.(%d%d%d)Z$")
  if not y then
    return nil
  end
  y, mo, d, h, mi, s, ms = tonumber(y), tonumber(mo), tonumber(d), tonumber(h), tonumber(mi), tonumber(s), tonumber(ms)
  local leap = y % 4 == 0 and (y % 100 ~= 0 or y % 400 == 0)
  local monthDays = (mo == 2 and leap) and 29 or DAYS_IN_MONTH[mo]
  if monthDays == nil or d < 1 or d > monthDays or h > 23 or mi > 59 or s > 59 then
    return nil
  end
  -- Days since 1970-01-01 of the proleptic Gregorian calendar, in years starting in March.
  local yy = mo <= 2 and y - 1 or y
  local era = math.floor(yy / 400)
  local yearOfEra = yy - era * 400
  local dayOfYear = math.floor((153 * ((mo + 9) % 12) + 2) / 5) + d - 1
  local dayOfEra = yearOfEra * 365 + math.floor(yearOfEra / 4) - math.floor(yearOfEra / 100) + dayOfYear
  local days = era * 146097 + dayOfEra - 719468
  return (((days * 24 + h) * 60 + mi) * 60 + s) * 1000 + ms
end

-- A batch settling a run it did not open gives the run's children their expiry. The head's flags
-- say which of the run's optional keys exist, for a run created once every process wrote them.
local expiresChildrenHere = settles and not opening
local createdMs = expiresChildrenHere and isoMs(head[7]) or nil
local flagsTrusted = flagsSince ~= nil and createdMs ~= nil and createdMs >= flagsSince
local expiresBlobs = not flagsTrusted or head[8] == "1"
local expiresChildren = not flagsTrusted or head[9] == "1"

-- Write.
local logWritten = false
-- XADD to the run log; the first one of a batch opening a run is the call's
-- first write, and refuses a run that exists (its log's top entry is 0-1 or past it).
local function addToLog(...)
  if logWritten or not opening then
    redis.call("XADD", logKey, ...)
    return nil
  end
  logWritten = true
  local added = redis.pcall("XADD", logKey, ...)
  if type(added) == "table" and added.err then
    if string.find(added.err, "equal or smaller", 1, true) then
      return { EXISTS, tonumber(redis.call("HGET", headKey, "seq") or "0") or 0, 1 }
    end
    return added
  end
  return nil
end

local listed = {}
-- A batch opening a run keeps one entry per event: its first is 0-1, which tells a run that exists.
local oneEntry = entryPerAppend and count > 1 and not opening
for i = 1, count do
  local eventType, at, data = eventAt(i, 1), eventAt(i, 2), eventAt(i, 3)
  if not oneEntry then
    local eventSeq = tostring(seq + i)
    local refused = addToLog("0-" .. eventSeq, "seq", eventSeq, "type", eventType, "at", at, "data", data)
    if refused then
      return refused
    end
  end
  listed[i] = "[" .. cjson.encode(eventType) .. "," .. cjson.encode(at) .. "," .. data .. "]"
end
local batch = "[" .. table.concat(listed, ",") .. "]"
if oneEntry then
  local refused = addToLog("0-" .. tostring(seq + count), "seq", tostring(seq + 1), "events", batch)
  if refused then
    return refused
  end
end
local indexes = opening and not settles and member ~= ""
-- A run opened by its run-queued alone, indexed here, with neither a budget nor a deadline (what
-- its head does not hold) opens quietly: no shard entry; the first append after it says queued.
local quiet = indexes and count == 1 and deadline == ""
  and (openingData.budget == nil or openingData.budget == cjson.null)
if quiet then
  updates.quietOpening = "1"
end
local shardFields = { "runId", runId, "seq", tostring(seq + 1), "events", batch }
local function addShardField(name, value)
  shardFields[#shardFields + 1] = name
  shardFields[#shardFields + 1] = value
end
if seq == 1 and head[10] == "1" then
  -- The first append after a quiet opening: what the collector's projection needs of its run-queued.
  local queued = { agent = head[11], rootRunId = head[12] or runId, depth = tonumber(head[15]) or 0,
    hasSchema = head[4] == "1", createdAt = head[7] }
  if head[13] then
    queued.parentRunId = head[13]
  end
  if head[14] then
    queued.tenant = head[14]
  end
  addShardField("queued", cjson.encode(queued))
end
if settles then
  addShardField("expiresAt", expiresAtText)
  if expiresChildrenHere then
    addShardField("childrenExpired", "1")
  end
elseif indexes and not quiet then
  addShardField("indexed", "1")
end
if not quiet then
  redis.call("XADD", shardKey, "*", unpack(shardFields))
end

local newSeq = seq + count
local fields = { "seq", tostring(newSeq), "status", status }
for field, value in pairs(updates) do
  fields[#fields + 1] = field
  fields[#fields + 1] = value
end
redis.call("HSET", headKey, unpack(fields))

if indexes then
  redis.call("ZADD", activeKey, 0, member)
  redis.call("ZADD", agentRunsKey, 0, member)
  if updates.tenant then
    redis.call("ZADD", tenantRunsKey, 0, member)
  end
  if deadline ~= "" then
    redis.call("ZADD", deadlinesKey, deadline, runId)
  end
end

if idempotencyKey then
  redis.call("SET", idempotencyKey, runId, "PX", idempotencyTtl)
end

if settles then
  redis.call("PEXPIREAT", logKey, expiresAtText)
  redis.call("PEXPIREAT", headKey, expiresAtText)
  if expiresBlobs then
    redis.call("PEXPIREAT", blobsKey, expiresAtText)
  end
  if expiresChildrenHere and expiresChildren then
    redis.call("PEXPIREAT", childrenKey, expiresAtText)
  end
end
-- A settled log, and the opened log of a child (a fan-out's children wait
-- queued by the thousand), at its exact size. The copy keeps the log's TTL,
-- and RENAME carries it back over the log.
if settles or (opening and updates.parentRunId) then
  redis.call("COPY", logKey, rewriteKey, "REPLACE")
  redis.call("RENAME", rewriteKey, logKey)
end

return { OK, newSeq, 0 }
