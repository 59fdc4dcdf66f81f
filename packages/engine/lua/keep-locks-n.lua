--[[
  Keeps the BullMQ job locks a worker holds while Redis is out of memory.
  BullMQ renews a lock with SET, which Redis refuses when used memory is above
  maxmemory (noeviction); this does the same with PEXPIRE, which Redis allows
  (it never grows memory), so a worker that holds its runs through the
  shortage keeps their jobs, and no stalled check hands them to another.
  Same contract as BullMQ's extendLocks: a lock is kept only while it still
  holds the worker's token.

  Input (n jobs, n >= 1; every key in the queue's hash tag):
    KEYS[1]     stalled set   <bullmq prefix>:<queue>:stalled     SET
    KEYS[1 + i] lock of job i <bullmq prefix>:<queue>:<jobId>:lock STRING (its token)

    ARGV[1]     lock duration in ms
    ARGV[1 + i] the token of job i
    ARGV[1 + n + i] the id of job i

  Output: the ids of the jobs whose lock is gone or holds another token
  (not kept); empty when every lock was kept.

  Effects, per job whose lock holds its token: PEXPIRE the lock (lock
  duration), SREM the job from the stalled set.
]]
local stalledKey = KEYS[1]
local duration = ARGV[1]
local count = #KEYS - 1
local lost = {}

for i = 1, count do
  local token, jobId = ARGV[1 + i], ARGV[1 + count + i]
  if redis.call("GET", KEYS[1 + i]) == token then
    redis.call("PEXPIRE", KEYS[1 + i], duration)
    redis.call("SREM", stalledKey, jobId)
  else
    lost[#lost + 1] = jobId
  end
end

return lost
