/**
 * The group's atomic steps, as Lua run by Redis (ioredis defineCommand: sent once, then called by SHA).
 * A lease's value is "<node>|<token>"; tokens come from one counter, so a newer owner always holds a larger
 * one (the fencing token). Expiry is Redis's own clock (PX), so clock skew between processes does not matter.
 */
export const LEASE_SCRIPTS = {
  leaseAcquire: {
    numberOfKeys: 2,
    lua: `
local v = redis.call('GET', KEYS[1])
if v then
  local owner, tok = string.match(v, '^(.*)|(%d+)$')
  if owner == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]); return {1, tonumber(tok), owner} end
  return {0, tonumber(tok), owner}
end
local tok = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. tok, 'PX', ARGV[2])
return {1, tok, ARGV[1]}`,
  },
  leaseCheck: {
    numberOfKeys: 1,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end return 0`,
  },
  leaseRelease: {
    numberOfKeys: 1,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
  },
  /**
   * Hands a lease to another process (ARGV: the value expected now, the new owner, ttl) with a new fencing
   * token, in one step; -1 when the expected owner no longer holds it.
   */
  leaseTransfer: {
    numberOfKeys: 2,
    lua: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local tok = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[2] .. '|' .. tok, 'PX', ARGV[3])
return tok`,
  },
  /** KEYS: the leases; ARGV[1]: ttl, ARGV[1+i]: the value expected for KEYS[i]. */
  leaseRenew: {
    lua: `
local out = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[i + 1] then redis.call('PEXPIRE', key, ARGV[1]); out[i] = 1 else out[i] = 0 end
end
return out`,
  },
} as const;

export const CLAIM_SCRIPTS = {
  /** Keeps a claim this process holds (ARGV: holder, ttl); 0 when it lapsed or another holds it. */
  claimRenew: {
    numberOfKeys: 1,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`,
  },
  claimRelease: {
    numberOfKeys: 1,
    lua: `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`,
  },
} as const;

export const LIMIT_SCRIPTS = {
  /**
   * Sliding-window log in a sorted set: ARGV now, window, limit, a unique member. Returns 0 and records the
   * hit when under the limit, else the milliseconds until the oldest counted hit leaves the window.
   */
  /** ARGV now, window, limit: {milliseconds until allowed (0: now), hits in the window} after dropping old hits. */
  slidingWait: {
    numberOfKeys: 1,
    lua: `
local now, win, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
local n = redis.call('ZCARD', KEYS[1])
if n < limit then return {0, n} end
local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
return {math.max(1, tonumber(oldest[2]) + win - now), n}`,
  },
  slidingHit: {
    numberOfKeys: 1,
    lua: `
local now, win, limit = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
if limit < 1 then return win end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - win)
local n = redis.call('ZCARD', KEYS[1])
if n >= limit then
  local oldest = redis.call('ZRANGE', KEYS[1], n - limit, n - limit, 'WITHSCORES')
  return math.max(1, tonumber(oldest[2]) + win - now)
end
redis.call('ZADD', KEYS[1], now, ARGV[4])
redis.call('PEXPIRE', KEYS[1], win)
return 0`,
  },
} as const;

/** Voice sessions live in the group per bot (src/scale/voice-seats.ts); scores are Redis's own clock (TIME). */
export const SEAT_SCRIPTS = {
  /** ARGV member, max, ttl: 1 and the seat taken when fewer than max are live, else 0. */
  seatTake: {
    numberOfKeys: 1,
    lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`,
  },
  /** ARGV ttl, then the members to keep (only those still there: a lapsed seat is not taken back). */
  seatKeep: {
    numberOfKeys: 1,
    lua: `
local t = redis.call('TIME')
local upto = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i = 2, #ARGV do redis.call('ZADD', KEYS[1], 'XX', upto, ARGV[i]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`,
  },
} as const;
