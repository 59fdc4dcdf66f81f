--[[
  Where each of n runs of one shard stands, for collect's counts, and the
  stored result of each of its first f runs (the runs read in full): settled
  (as its stored result says), pending (it exists without a stored result),
  or unknown (never fired, or expired). Read only. A settled run's status is
  its head's: the head follows the fold's rules and settles before the
  collector writes the result, so a stored result always finds its head
  settled, unless the head expired a moment before the result. The runs read
  in full cost two commands together, whatever their number: one MGET of
  their results, then one EXISTS of the heads of those without one, which
  are all pending when every head exists (else each of those heads' EXISTS
  follows). A lone run read in full, read head first (ARGV[2], for a run the
  caller expects pending: the first read of a wait), costs one lookup when
  its head is not settled (its status), two otherwise (then its GET). A run
  only counted costs two lookups of its own.

  Input (n runs, n >= 1; every key in the shard's hash tag {sN}):
    for run i = 1 … n, at k = 2(i-1):
    KEYS[k+1] its result  <p>:{sN}:result:<runId>  STRING (JSON)
    KEYS[k+2] its head    <p>:{sN}:run:<runId>     HASH
    ARGV[1] f, how many of the runs, from the first, are read in full (0 … n,
            at most a few thousand: MGET and EXISTS take them as arguments)
    ARGV[2] "1": a lone run read in full (f = 1) is read head first; ""
            (or absent): result first

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
local reply = { "" }
local standings = {}

if inFull == 1 and ARGV[2] == "1" then
  local status = redis.call("HGET", KEYS[2], "status")
  -- A head not settled has no result; any other (or none) may have one.
  local stored = (not status or SETTLED[status]) and redis.call("GET", KEYS[1])
  if stored then
    standings[1] = "r"
    reply[2] = stored
  else
    standings[1] = status and "p" or "n"
  end
elseif inFull > 0 then
  local resultKeys = {}
  for i = 1, inFull do
    resultKeys[i] = KEYS[2 * i - 1]
  end
  local stored = redis.call("MGET", unpack(resultKeys))
  local headKeys, unread = {}, {}
  for i = 1, inFull do
    if stored[i] then
      standings[i] = "r"
      reply[#reply + 1] = stored[i]
    else
      headKeys[#headKeys + 1] = KEYS[2 * i]
      unread[#unread + 1] = i
    end
  end
  if #headKeys > 0 then
    local everyHead = redis.call("EXISTS", unpack(headKeys)) == #headKeys
    for j, i in ipairs(unread) do
      local exists = everyHead or redis.call("EXISTS", headKeys[j]) == 1
      standings[i] = exists and "p" or "n"
    end
  end
end

for i = inFull + 1, #KEYS / 2 do
  local k = 2 * i - 1
  local standing
  if redis.call("EXISTS", KEYS[k]) == 1 then
    standing = SETTLED[redis.call("HGET", KEYS[k + 1], "status")] or "?"
  else
    standing = redis.call("EXISTS", KEYS[k + 1]) == 1 and "p" or "n"
  end
  standings[i] = standing
end
reply[1] = table.concat(standings)
return reply
