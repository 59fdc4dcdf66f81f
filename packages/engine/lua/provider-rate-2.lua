--[[
  A provider key's shared rate limit (docs/architecture/flow-control.md#flow-control):
  a token bucket of requests (refilled at `rpm` a minute, holding at most
  `rpm`) and one of model tokens (`tpm`), in one HASH (requests, tokens, at),
  and the pause a 429 sets, a STRING whose TTL is the pause. A limit of 0 is
  no limit. Time is Redis' clock, the same for every worker.

  KEYS[1] the bucket HASH     KEYS[2] the pause STRING (same `{flow}` hash tag)
  ARGV[1] "take": one request may start? Returns 0 (taken) or the ms to wait.
          "debit": ARGV[4] model tokens a response used are taken (the
                   bucket may go below 0: the next requests wait it out).
          "pause": ARGV[4] ms during which no request starts (a longer
                   pause already set stays). Returns 0.
  ARGV[2] rpm     ARGV[3] tpm
]]
local time = redis.call("TIME")
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local mode = ARGV[1]
local IDLE_EXPIRY_MS = 86400000

if mode == "pause" then
  local pauseMs = tonumber(ARGV[4])
  if redis.call("PTTL", KEYS[2]) < pauseMs then
    redis.call("SET", KEYS[2], now + pauseMs, "PX", pauseMs)
  end
  return 0
end

if mode == "take" then
  local paused = redis.call("PTTL", KEYS[2])
  if paused > 0 then return paused end
end

local rpm = tonumber(ARGV[2])
local tpm = tonumber(ARGV[3])
local state = redis.call("HMGET", KEYS[1], "requests", "tokens", "at")
local elapsed = math.max(0, now - (tonumber(state[3]) or now))
local requests = math.min(rpm, (tonumber(state[1]) or rpm) + elapsed * rpm / 60000)
local tokens = math.min(tpm, (tonumber(state[2]) or tpm) + elapsed * tpm / 60000)

if mode == "debit" then
  tokens = tokens - tonumber(ARGV[4])
else
  if rpm > 0 and requests < 1 then return math.ceil((1 - requests) * 60000 / rpm) end
  if tpm > 0 and tokens < 1 then return math.ceil((1 - tokens) * 60000 / tpm) end
  requests = requests - 1
end
redis.call("HSET", KEYS[1], "requests", tostring(requests), "tokens", tostring(tokens), "at", now)
redis.call("PEXPIRE", KEYS[1], IDLE_EXPIRY_MS)
return 0
