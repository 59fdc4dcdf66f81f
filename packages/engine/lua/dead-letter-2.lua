--[[
  Moves a shard stream entry the collectors keep failing on to the shard's
  dead-letter stream and acknowledges it, in one step: an entry is
  dead-lettered at most once, even when two collectors give up on it at once.
  It checks first and writes last: the entry is acknowledged only once its
  dead letter is written, so it is never acknowledged without one.

  Input:
    KEYS[1] shard stream  <p>:{sN}:events  STREAM (consumer group ARGV[1])
    KEYS[2] dead letters  <p>:{sN}:dead    STREAM

    ARGV[1] the consumer group
    ARGV[2] the entry id
    ARGV[3] why it failed (the last error)
    ARGV[4] how many times it was delivered
    ARGV[5] the consumer that gave up on it

  Output:
     1  dead-lettered
     0  the entry was no longer pending (acknowledged meanwhile): nothing written

  Effects (code 1 only): XADD "*" to the dead letters with fields entryId,
  error, deliveries, consumer and fields (the entry's own fields as a JSON
  array [name, value, …]; [] when the entry was deleted), then XACK the entry.
]]
local streamKey, deadKey = KEYS[1], KEYS[2]
local group, entryId = ARGV[1], ARGV[2]

if #redis.call("XPENDING", streamKey, group, entryId, entryId, 1) == 0 then
  return 0
end
local fields = "[]"
local entries = redis.call("XRANGE", streamKey, entryId, entryId)
if #entries == 1 and #entries[1][2] > 0 then
  fields = cjson.encode(entries[1][2])
end
redis.call("XADD", deadKey, "*", "entryId", entryId, "error", ARGV[3], "deliveries", ARGV[4],
  "consumer", ARGV[5], "fields", fields)
redis.call("XACK", streamKey, group, entryId)
return 1
