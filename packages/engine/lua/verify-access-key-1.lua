--[[
  Verifies an access key against its record (docs/architecture/redis-layout.md#access-keys)
  and notes its use. The key itself never reaches Redis: only its SHA-256.

  KEYS[1] the key's record HASH
  ARGV[1] the SHA-256 (hex) of the key presented
  ARGV[2] now, ISO 8601: written as `lastUsedAt` when the hash matches
  Returns the record's fields (HGETALL's flat list) when the hash matches;
  an empty list for a record that does not exist or a hash that differs.
]]
local stored = redis.call("HGET", KEYS[1], "hash")
if stored == false or stored ~= ARGV[1] then return {} end
redis.call("HSET", KEYS[1], "lastUsedAt", ARGV[2])
return redis.call("HGETALL", KEYS[1])
