--[[
  Where each of n runs of one shard stands, for collect's counts, and the
  stored result of each of its first f runs (the runs read in full): settled
  (as its stored result says), pending (it exists without a stored result),
  or unknown (never fired, or expired). Read only. A settled run's status is
  its head's: the head follows the fold's rules and settles before the
  collector writes the result, so a stored result always finds its head
  settled, unless the head expired a moment before the result. A run read in
  full costs one lookup when it has a result (its GET) and two when it has
  none (its GET, then its head's EXISTS); read head first (ARGV[2], for runs
  a caller expects pending: the first read of a wait), one when its head is
  not settled (the head's status), two otherwise (then its GET); a run only
  counted, two.

  Input (n runs, n >= 1; every key in the shard's hash tag {sN}):
    for run i = 1 … n, at k = 2(i-1):
    KEYS[k+1] its result  <p>:{sN}:result:<runId>  STRING (JSON)
    KEYS[k+2] its head    <p>:{sN}:run:<runId>     HASH
    ARGV[1] f, how many of the runs, from the first, are read in full (0 … n)
    ARGV[2] "1": read the runs read in full head first; "" (or absent): result first

  Output: an array: first a string of n characters, the i-th for run i:
    r  read in full, its result stored: its text follows
    s  succeeded   f  failed   c  cancelled   (a result is stored)
    p  pending: a head and no result
    n  not found: neither a head nor a result
    ?  a result whose head is gone (or not settled): read the result itself
  then the text of each result read in full (each "r"), in the runs' order.

  Effects: none.
]]
local SETTLED = { succeeded = "s", failed = "f", cancelled = "c" }
local inFull = tonumber(ARGV[1])
local headFirst = ARGV[2] == "1"
local reply = { "" }
local standings = {}
for k = 1, #KEYS, 2 do
  local standing
  if (k + 1) / 2 <= inFull and headFirst then
    local status = redis.call("HGET", KEYS[k + 1], "status")
    if status and not SETTLED[status] then
      standing = "p"
    else
      local stored = redis.call("GET", KEYS[k])
      if stored then
        standing = "r"
        reply[#reply + 1] = stored
      else
        standing = status and "p" or "n"
      end
    end
  elseif (k + 1) / 2 <= inFull then
    local stored = redis.call("GET", KEYS[k])
    if stored then
      standing = "r"
      reply[#reply + 1] = stored
    end
  elseif redis.call("EXISTS", KEYS[k]) == 1 then
    standing = SETTLED[redis.call("HGET", KEYS[k + 1], "status")] or "?"
  end
  if not standing then
    standing = redis.call("EXISTS", KEYS[k + 1]) == 1 and "p" or "n"
  end
  standings[#standings + 1] = standing
end
reply[1] = table.concat(standings)
return reply
