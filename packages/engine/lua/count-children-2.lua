--[[
  Counts settled children of one parent, each once: a child still in the
  parent's pending children is removed from them and counted under its
  status; a child not there (counted before: an entry delivered again, a
  collector that died after this call and before its acknowledgement; or
  never added: linked by an older version, withdrawn) is left alone. So a
  child is counted at most once however often this runs, and never lost
  while the entries that settled it are unacknowledged (the caller runs this
  before it acknowledges them). Both keys carry the parent's hash tag.

  Input:
    KEYS[1] pending children  <p>:{sN}:children-pending:<parentRunId>  SET of runIds
    KEYS[2] children counts   <p>:{sN}:children-counts:<parentRunId>   HASH succeeded, failed, cancelled

    ARGV[1] how long the counts are kept after this call counts a child, ms
    then, for each child: its runId, then its settled status
      (succeeded, failed or cancelled)

  Output: how many children this call counted.

  Effects: per child counted, SREM from KEYS[1] and HINCRBY of its status in
  KEYS[2] by 1; then, when it counted any, PEXPIRE KEYS[2] ARGV[1].
]]
local pendingKey, countsKey = KEYS[1], KEYS[2]
local counted = 0

for i = 2, #ARGV, 2 do
  if redis.call("SREM", pendingKey, ARGV[i]) == 1 then
    redis.call("HINCRBY", countsKey, ARGV[i + 1], 1)
    counted = counted + 1
  end
end
if counted > 0 then
  redis.call("PEXPIRE", countsKey, ARGV[1])
end
return counted
