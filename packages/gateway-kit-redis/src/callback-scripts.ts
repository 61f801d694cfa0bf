import { type LuaScript, lua } from './redis-connection.ts';

/*
 * The callback outbox, per principal (times are epoch ms of Redis' clock, so instances need not
 * agree on the time):
 * - `cb:entry:<id>` hash: `url`, `payload`, `authorization` (when given), `attempts`, `claim` (the
 *   token of the instance holding it, '' when none), `principal`, `bytes` (what it counts against
 *   the principal's byte share) and `expires` (end of its retention);
 * - `cb:all` sorted set: every pending id by its next attempt time (the global count);
 * - `cb:q:<principal>` sorted set: that principal's ids by next attempt time (its item share);
 * - `cb:bytes` hash: principal → bytes pending (its byte share);
 * - `cb:ready` sorted set: principals with pending entries, scored by when they are next eligible
 *   for a claim: the later of their earliest entry and when they were last served (+0.5 ms), so
 *   that claims go round the principals with due entries, least recently served first;
 * - `cb:served` hash: principal → when a claim last served it.
 * A claim is a score in the future: if its holder neither completes nor reschedules the entry by
 * then, the entry is simply due again. All these keys are in the bucket of their principal (the
 * prefix ARGV[1] holds the bucket's hash tag): `cb:all` counts the bucket's entries.
 *
 * KEYS of every script: 1 cb:all, 2 cb:ready, 3 cb:bytes, 4 cb:served, then per script.
 * ARGV of every script: 1 key prefix ('<prefix>cb:'), then per script.
 */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** Re-scores principal `p` in `cb:ready`, or forgets it (and resets its counters) when it has no entries. */
const REFRESH = `
local function refresh(p)
  local q = ARGV[1] .. 'q:' .. p
  local first = redis.call('ZRANGE', q, 0, 0, 'WITHSCORES')
  if #first == 0 then
    redis.call('ZREM', KEYS[2], p)
    redis.call('HDEL', KEYS[3], p)
    redis.call('HDEL', KEYS[4], p)
    return
  end
  local at = tonumber(first[2])
  local served = tonumber(redis.call('HGET', KEYS[4], p) or '0')
  if served > at then at = served end
  redis.call('ZADD', KEYS[2], at, p)
end
`;

/** Removes entry `id` of principal `p` holding `bytes` from every index (not its hash). */
const FORGET = `
local function forget(id, p, bytes)
  redis.call('ZREM', KEYS[1], id)
  redis.call('ZREM', ARGV[1] .. 'q:' .. p, id)
  if bytes > 0 then redis.call('HINCRBY', KEYS[3], p, -bytes) end
end
`;

/**
 * Store-if-absent, claimed. KEYS: 5 entry hash. ARGV: 2 webhookId, 3 claim, 4 lease ms, 5 max
 * entries (0 = unbounded), 6 ttl ms, 7 url, 8 payload, 9 '1' when an authorization follows,
 * 10 authorization, 11 principal ('' = none), 12 max entries per principal, 13 max bytes per
 * principal (0 = unbounded; not applied to principal '').
 * Returns 'ok' | 'exists' | 'full'.
 */
export const ENQUEUE_CALLBACK: LuaScript = lua(`${NOW}${REFRESH}
if redis.call('EXISTS', KEYS[5]) == 1 then return 'exists' end
local max = tonumber(ARGV[5])
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max then return 'full' end
local p = ARGV[11]
local bytes = #ARGV[7] + #ARGV[8] + #ARGV[10]
if p ~= '' then
  local maxItems = tonumber(ARGV[12])
  if maxItems > 0 and redis.call('ZCARD', ARGV[1] .. 'q:' .. p) >= maxItems then return 'full' end
  local maxBytes = tonumber(ARGV[13])
  local held = tonumber(redis.call('HGET', KEYS[3], p) or '0')
  if maxBytes > 0 and held + bytes > maxBytes then return 'full' end
end
local ttl = tonumber(ARGV[6])
redis.call('HSET', KEYS[5], 'url', ARGV[7], 'payload', ARGV[8], 'attempts', '0', 'claim', ARGV[3],
  'principal', p, 'bytes', bytes, 'expires', now + ttl)
if ARGV[9] == '1' then redis.call('HSET', KEYS[5], 'authorization', ARGV[10]) end
-- A safety net only: claims remove expired entries (and report them) long before.
redis.call('PEXPIRE', KEYS[5], ttl * 2)
local due = now + tonumber(ARGV[4])
redis.call('ZADD', KEYS[1], due, ARGV[2])
redis.call('ZADD', ARGV[1] .. 'q:' .. p, due, ARGV[2])
redis.call('HINCRBY', KEYS[3], p, bytes)
refresh(p)
return 'ok'
`);

/**
 * Claims due entries, one per principal in turn. ARGV: 2 claim, 3 lease ms, 4 limit.
 * Returns {{webhookId, url, payload, attempts, authorization or nil, principal, expired '1'/'0'}, …};
 * an expired entry is removed, not claimed (its payload comes back empty).
 */
export const CLAIM_CALLBACKS: LuaScript = lua(`${NOW}${REFRESH}${FORGET}
local limit = tonumber(ARGV[4])
local lease = now + tonumber(ARGV[3])
-- Served principals are scored half a millisecond after now: after every principal with an entry
-- due by now, yet still eligible within this millisecond.
local principals = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now + 0.5, 'LIMIT', 0, limit)
local claimed = {}
local turn = principals
while #claimed < limit and #turn > 0 do
  local again = {}
  for _, p in ipairs(turn) do
    if #claimed >= limit then break end
    local q = ARGV[1] .. 'q:' .. p
    local ids = redis.call('ZRANGEBYSCORE', q, '-inf', now, 'LIMIT', 0, 1)
    local id = ids[1]
    if id then
      local key = ARGV[1] .. 'entry:' .. id
      local f = redis.call('HMGET', key, 'url', 'payload', 'attempts', 'authorization', 'expires', 'bytes')
      if not (f[1] and f[2]) then
        -- Its hash is gone (the safety expiry): nothing left to deliver or report.
        forget(id, p, 0)
      elseif f[5] and tonumber(f[5]) <= now then
        redis.call('DEL', key)
        forget(id, p, tonumber(f[6] or '0'))
        claimed[#claimed + 1] = {id, f[1], '', f[3] or '0', false, p, '1'}
      else
        redis.call('HSET', key, 'claim', ARGV[2])
        redis.call('ZADD', KEYS[1], lease, id)
        redis.call('ZADD', q, lease, id)
        claimed[#claimed + 1] = {id, f[1], f[2], f[3] or '0', f[4], p, '0'}
      end
      again[#again + 1] = p
    end
  end
  turn = again
end
for _, p in ipairs(principals) do
  redis.call('HSET', KEYS[4], p, now + 0.5)
  refresh(p)
end
return claimed
`);

/**
 * Deletes a delivered or abandoned entry if the claim still holds. KEYS: 5 entry hash.
 * ARGV: 2 webhookId, 3 claim.
 */
export const COMPLETE_CALLBACK: LuaScript = lua(`${REFRESH}${FORGET}
local f = redis.call('HMGET', KEYS[5], 'claim', 'principal', 'bytes')
if f[1] ~= ARGV[3] then return 0 end
local p = f[2] or ''
redis.call('DEL', KEYS[5])
forget(ARGV[2], p, tonumber(f[3] or '0'))
refresh(p)
return 1
`);

/**
 * Releases a claim and schedules the next attempt. KEYS: 5 entry hash. ARGV: 2 webhookId,
 * 3 claim, 4 attempts, 5 delay ms.
 */
export const RESCHEDULE_CALLBACK: LuaScript = lua(`${NOW}${REFRESH}
local f = redis.call('HMGET', KEYS[5], 'claim', 'principal')
if f[1] ~= ARGV[3] then return 0 end
local p = f[2] or ''
redis.call('HSET', KEYS[5], 'attempts', ARGV[4], 'claim', '')
local due = now + tonumber(ARGV[5])
redis.call('ZADD', KEYS[1], due, ARGV[2])
redis.call('ZADD', ARGV[1] .. 'q:' .. p, due, ARGV[2])
refresh(p)
return 1
`);
