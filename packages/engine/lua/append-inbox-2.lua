--[[
  Announces a settled child in its parent's inbox, once: a child already
  announced is not added again, so a collector that delivers the same
  settlement twice (a redelivered or claimed entry) never makes the parent
  see a child twice.

  Input:
    KEYS[1] inbox  <p>:{sP}:inbox:<parentRunId>       STREAM
    KEYS[2] seen   <p>:{sP}:inbox:<parentRunId>:seen  SET of child runIds

    ARGV[1] the child's runId
    ARGV[2] retention in seconds: the TTL both keys get (renewed on every announcement)
    ARGV[3 …] the inbox entry's fields: name, value, name, value, …

  Output:
     1  announced: XADD to the inbox
     0  the child was announced before: nothing written

  Effects (code 1 only): SADD the child to seen, XADD "*" the fields to the
  inbox, EXPIRE both keys.
]]
local inboxKey, seenKey = KEYS[1], KEYS[2]
local childRunId = ARGV[1]
local retention = tonumber(ARGV[2])

if redis.call("SADD", seenKey, childRunId) == 0 then
  return 0
end
redis.call("XADD", inboxKey, "*", unpack(ARGV, 3))
redis.call("EXPIRE", inboxKey, retention)
redis.call("EXPIRE", seenKey, retention)
return 1
