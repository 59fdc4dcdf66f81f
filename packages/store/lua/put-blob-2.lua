--[[
  Stores one large value of a run (a blob) under the next blob number.

  Input:
    KEYS[1] run blobs  <p>:{sN}:run:<runId>:blobs  HASH
    KEYS[2] run head   <p>:{sN}:run:<runId>        HASH

    ARGV[1] the value
    ARGV[2] its metadata, JSON: { contentType, sizeBytes, sha256 }

  Output: { code, n }
     0  stored: n = the blob's number (0, 1, 2, … per run)
    -4  run not found: the run has no head (never queued, or expired)

  Effects (code 0 only):
    - HINCRBY blobs "count" 1 (n = the count before), then HSET blobs "<n>" value,
      "<n>:meta" metadata
    - when the head already has a TTL (the run settled), the blobs key gets the
      same TTL, so that a blob stored late expires with its run
]]
local blobsKey, headKey = KEYS[1], KEYS[2]

local OK, NOT_FOUND = 0, -4

if redis.call("EXISTS", headKey) == 0 then
  return { NOT_FOUND, 0 }
end

local n = redis.call("HINCRBY", blobsKey, "count", 1) - 1
redis.call("HSET", blobsKey, tostring(n), ARGV[1], n .. ":meta", ARGV[2])

local ttl = redis.call("PTTL", headKey)
if ttl > 0 then
  redis.call("PEXPIRE", blobsKey, ttl)
end

return { OK, n }
