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
    - with the run's first blob (n = 0), HSET head "hasBlobs" 1: the append that
      settles the run gives the blobs their expiry only when its head says so
      (append-11.lua)
    - when the head already has a TTL (the run settled), the blobs key gets the
      same TTL, so that a blob stored late expires with its run
]]
local blobsKey, headKey = KEYS[1], KEYS[2]

local OK, NOT_FOUND = 0, -4

-- -2: no head. The head's TTL is read first: it tells both that the run exists and whether it settled.
local ttl = redis.call("PTTL", headKey)
if ttl == -2 then
  return { NOT_FOUND, 0 }
end

local n = redis.call("HINCRBY", blobsKey, "count", 1) - 1
redis.call("HSET", blobsKey, tostring(n), ARGV[1], n .. ":meta", ARGV[2])
if n == 0 then
  redis.call("HSET", headKey, "hasBlobs", "1")
end

if ttl > 0 then
  redis.call("PEXPIRE", blobsKey, ttl)
end

return { OK, n }
