--[[
  Where each of n runs of one shard stands, for collect's counts: settled
  (as its stored result says), pending (it exists without a stored result),
  or unknown (never fired, or expired). Read only. A settled run's status is
  its head's: the head follows the fold's rules and settles before the
  collector writes the result, so a stored result always finds its head
  settled, unless the head expired a moment before the result.

  Input (n runs, n >= 1; every key in the shard's hash tag {sN}):
    for run i = 1 … n, at k = 2(i-1):
    KEYS[k+1] its result  <p>:{sN}:result:<runId>  STRING (JSON)
    KEYS[k+2] its head    <p>:{sN}:run:<runId>     HASH

  Output: a string of n characters, the i-th for run i:
    s  succeeded   f  failed   c  cancelled   (a result is stored)
    p  pending: a head and no result
    n  not found: neither a head nor a result
    ?  a result whose head is gone (or not settled): read the result itself

  Effects: none.
]]
local SETTLED = { succeeded = "s", failed = "f", cancelled = "c" }
local standings = {}
for k = 1, #KEYS, 2 do
  local standing
  if redis.call("EXISTS", KEYS[k]) == 1 then
    standing = SETTLED[redis.call("HGET", KEYS[k + 1], "status")] or "?"
  elseif redis.call("EXISTS", KEYS[k + 1]) == 1 then
    standing = "p"
  else
    standing = "n"
  end
  standings[#standings + 1] = standing
end
return table.concat(standings)
