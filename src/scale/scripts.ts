/**
 * The group's atomic steps, as Lua run by Redis (ioredis defineCommand: sent once, then called by SHA).
 * A lease's value is "<node>|<token>"; tokens come from one counter, so a newer owner always holds a larger
 * one (the fencing token). Expiry is Redis's own clock (PX), so clock skew between processes does not matter.
 */
/** How long a conversation's last lease grant is remembered (a lapsed lease is taken back only by its last holder). */
const LAST_GRANT_MS = 24 * 3600_000;

export const LEASE_SCRIPTS = {
  /**
   * KEYS: the lease, the fence counter, the lease's last grant (kept a day: see leaseRenew), the processes with a
   * widget open on the conversation (WATCH_SCRIPTS), returned with a grant: from then on each change goes to the owner.
   */
  leaseAcquire: {
    numberOfKeys: 4,
    lua: `
local v = redis.call('GET', KEYS[1])
if v then
  local owner, tok = string.match(v, '^(.*)|(%d+)$')
  if owner == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]); return {1, tonumber(tok), owner, redis.call('SMEMBERS', KEYS[4])} end
  return {0, tonumber(tok), owner, {}}
end
local tok = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. tok, 'PX', ARGV[2])
redis.call('SET', KEYS[3], ARGV[1] .. '|' .. tok, 'PX', ${LAST_GRANT_MS})
return {1, tok, ARGV[1], redis.call('SMEMBERS', KEYS[4])}`,
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
    numberOfKeys: 3,
    lua: `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return -1 end
local tok = redis.call('INCR', KEYS[2])
redis.call('SET', KEYS[1], ARGV[2] .. '|' .. tok, 'PX', ARGV[3])
redis.call('SET', KEYS[3], ARGV[2] .. '|' .. tok, 'PX', ${LAST_GRANT_MS})
return tok`,
  },
  /**
   * KEYS: n leases, then their last grants; ARGV[1]: ttl, ARGV[1+i]: the value expected for lease i. A lease
   * still ours is extended. A lease nobody holds is taken back with the same value when its last grant is ours
   * or gone (it lapsed while Redis was away, or Redis came back empty): nobody else held it meanwhile, so the
   * actor's state here is still the truth. 0 when another process holds it, or held it since (its writes came
   * after ours).
   */
  leaseRenew: {
    lua: `
local n = #KEYS / 2
local out = {}
for i = 1, n do
  local v = redis.call('GET', KEYS[i])
  if v == ARGV[i + 1] then redis.call('PEXPIRE', KEYS[i], ARGV[1]); out[i] = 1
  elseif not v then
    local last = redis.call('GET', KEYS[n + i])
    if (not last) or last == ARGV[i + 1] then
      redis.call('SET', KEYS[i], ARGV[i + 1], 'PX', ARGV[1])
      redis.call('SET', KEYS[n + i], ARGV[i + 1], 'PX', ${LAST_GRANT_MS})
      out[i] = 1
    else out[i] = 0 end
  else out[i] = 0 end
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
  /**
   * A limit key's home (src/scale/limits.ts), ARGV: this process, ttl. Free or ours: taken (or kept) and '' is
   * returned; else the process that holds it.
   */
  homeClaim: {
    numberOfKeys: 1,
    lua: `
local v = redis.call('GET', KEYS[1])
if (not v) or v == ARGV[1] then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]); return '' end
return v`,
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
  /**
   * ARGV member, max, ttl, the membership keys' prefix: 1 and the seat taken when fewer than max are live, else 0.
   * Seats of a process whose membership lapsed (killed, frozen: `<prefix><process>` gone) are dropped first.
   */
  seatTake: {
    numberOfKeys: 1,
    lua: `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local node = string.match(m, '^(.*)|[^|]*$')
  if node and redis.call('EXISTS', ARGV[4] .. node) == 0 then redis.call('ZREM', KEYS[1], m) end
end
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

/**
 * Which processes have a widget open on a conversation (src/scale/conversation-watchers.ts): a set per
 * conversation, and each change told to the conversation's owner alone, in the same step (so an owner that takes
 * the lease later reads the set, and one that holds it hears every change after).
 */
export const WATCH_SCRIPTS = {
  /**
   * KEYS: the set, the lease; ARGV: this process, '1' open or '0' closed, the set's ttl, the processes' frame
   * channel prefix, the notice. The notice is published to the owner's channel unless this process owns it.
   */
  convWatch: {
    numberOfKeys: 2,
    lua: `
if ARGV[2] == '1' then redis.call('SADD', KEYS[1], ARGV[1]); redis.call('PEXPIRE', KEYS[1], ARGV[3])
else redis.call('SREM', KEYS[1], ARGV[1]) end
local v = redis.call('GET', KEYS[2])
if not v then return 0 end
local owner = string.match(v, '^(.*)|%d+$')
if owner == ARGV[1] then return 0 end
return redis.call('PUBLISH', ARGV[4] .. owner, ARGV[5])`,
  },
  /**
   * KEYS: the set; ARGV: this process, the frame channel prefix, the message. Published to every process in the
   * set but this one (a frame sent by a process that does not own the conversation); a process nobody hears on
   * (it died) leaves the set. Returns how many heard it.
   */
  convSend: {
    numberOfKeys: 1,
    lua: `
local n = 0
for _, m in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  if m ~= ARGV[1] then
    local heard = redis.call('PUBLISH', ARGV[2] .. m, ARGV[3])
    if heard == 0 then redis.call('SREM', KEYS[1], m) end
    n = n + heard
  end
end
return n`,
  },
} as const;
