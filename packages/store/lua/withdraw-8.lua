--[[
  Withdraws a run that was written but never fired: its `run-queued` is in
  its log, and its producer could not enqueue its job. Only a run that
  nothing happened to since (its head at seq 1, status queued) is withdrawn:
  its log, head and blobs are deleted and it leaves the shard's indexes, so
  nothing is left behind, and the idempotency key it was fired under, if
  any, is released so that firing with that key again makes a run. Every
  command here frees memory (DEL, ZREM), so Redis runs it even when it is
  out of memory and refusing writes.

  Input:
    KEYS[1] run log       <p>:{sN}:run:<runId>:log         STREAM
    KEYS[2] run head      <p>:{sN}:run:<runId>             HASH
    KEYS[3] run blobs     <p>:{sN}:run:<runId>:blobs       HASH
    KEYS[4] runs          <p>:{sN}:index:runs              ZSET
    KEYS[5] active runs   <p>:{sN}:index:status:active     ZSET
    KEYS[6] agent's runs  <p>:{sN}:index:agent:<agent>     ZSET
    KEYS[7] deadlines     <p>:{sN}:deadlines               ZSET (member runId)
    KEYS[8] idempotency   <p>:{sN}:idempotency:<digest>    STRING, only for a run
            fired with an idempotency key (on the same shard as the run)

    ARGV[1] runId
    ARGV[2] its index member: "<createdAt ms, 15 digits>:<runId>"

  Output:
     1  withdrawn
     0  the run has no head: nothing to withdraw
    -1  the run moved on (its head is past seq 1 or not queued): left as it is

  Effects (code 1 only): DEL the log, head and blobs, and the idempotency
  key while it still names this run; ZREM the member from
  the runs, active and agent's indexes and the runId from the deadlines (the
  collector may have indexed the run already; should it index it later, it
  finds no head and removes it itself).
]]
local logKey, headKey, blobsKey = KEYS[1], KEYS[2], KEYS[3]
local runId, member = ARGV[1], ARGV[2]

local head = redis.call("HMGET", headKey, "seq", "status")
if head[1] == false then
  return 0
end
if head[1] ~= "1" or head[2] ~= "queued" then
  return -1
end

redis.call("DEL", logKey, headKey, blobsKey)
if KEYS[8] and redis.call("GET", KEYS[8]) == runId then
  redis.call("DEL", KEYS[8])
end
redis.call("ZREM", KEYS[4], member)
redis.call("ZREM", KEYS[5], member)
redis.call("ZREM", KEYS[6], member)
redis.call("ZREM", KEYS[7], runId)
return 1
