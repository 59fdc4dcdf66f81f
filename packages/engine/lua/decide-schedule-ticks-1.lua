--[[
  Decides ticks of one schedule whose `overlap` is `skip` or `cancel-previous`
  (docs/architecture/schedules.md#overlap-and-catch-up): each tick once, for
  every process that handles it. A tick decided before keeps its verdict; a
  tick older than one already decided is superseded (skipped); the others
  are decided together, against the schedule's newest tick fired before
  them, whose run the caller looked up: running (or still being fired),
  `skip` skips them and `cancel-previous` fires them and tells this caller,
  and this caller alone, to cancel that run. The caller's look-up holds only
  while that tick is still the newest fired one: otherwise nothing is
  written and the caller is told which tick to look up instead.

  KEYS[1] the schedule's decided ticks: ZSET, score the tick (ms), member
          `<tick>:fire:<decided at ms>` or `<tick>:skip`; the newest 256 kept
  ARGV[1] overlap: `skip` or `cancel-previous`
  ARGV[2] the tick the caller looked up ("" for none: the schedule never fired)
  ARGV[3] "1" when that tick's run is running or still being fired, else "0"
  ARGV[4] now (ms), kept as a fire's decision time
  ARGV[5..] the ticks to decide (ms), oldest first
  Returns {0, cancel, verdict...}: decided; cancel 1 when this caller must
  cancel the looked-up tick's run; one verdict per tick, `fire` or `skip`.
  Returns {1, tick, decided at}: the looked-up tick is not the newest fired
  before the first undecided one; look up `tick` ("" for none) and call again.
]]
local KEPT = 256
local key = KEYS[1]
local overlap, lookedUp, running, now = ARGV[1], ARGV[2], ARGV[3] == "1", ARGV[4]

local function verdictOf(member)
  return string.match(member, "^%d+:(%a+)")
end

local newest = redis.call("ZREVRANGE", key, 0, 0, "WITHSCORES")
local newestDecided = tonumber(newest[2] or "-1")
local verdicts, undecided = {}, {}
for i = 5, #ARGV do
  local tick = ARGV[i]
  local found = redis.call("ZRANGEBYSCORE", key, tick, tick, "LIMIT", 0, 1)[1]
  if found then
    verdicts[i - 4] = verdictOf(found)
  elseif tonumber(tick) <= newestDecided then
    redis.call("ZADD", key, tick, tick .. ":skip")
    verdicts[i - 4] = "skip"
  else
    undecided[#undecided + 1] = i
  end
end
if #undecided == 0 then
  return {0, 0, unpack(verdicts)}
end

-- The newest tick fired before the first undecided one.
local first = ARGV[undecided[1]]
local previous, previousAt = "", ""
for _, member in ipairs(redis.call("ZREVRANGEBYSCORE", key, "(" .. first, "-inf")) do
  local tick, verdict, at = string.match(member, "^(%d+):(%a+):?(%d*)$")
  if verdict == "fire" then
    previous, previousAt = tick, at
    break
  end
end
if previous ~= lookedUp then
  return {1, previous, previousAt}
end

local verdict, cancel = "fire", 0
if previous ~= "" and running then
  if overlap == "skip" then verdict = "skip" else cancel = 1 end
end
for _, i in ipairs(undecided) do
  local member = ARGV[i] .. ":" .. verdict
  if verdict == "fire" then member = member .. ":" .. now end
  redis.call("ZADD", key, ARGV[i], member)
  verdicts[i - 4] = verdict
end
redis.call("ZREMRANGEBYRANK", key, 0, -(KEPT + 1))
return {0, cancel, unpack(verdicts)}
