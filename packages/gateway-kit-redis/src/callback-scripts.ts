import { type LuaScript, lua } from './redis-connection.ts';

/*
 * The callback outbox: a zset of webhook ids scored by the next attempt time (epoch ms of Redis'
 * clock, so instances need not agree on the time), and one hash per entry with `url`, `payload`,
 * `authorization` (when given), `attempts` and `claim` (the token of the instance holding it, '' when
 * none). A claim is a score in the future: if its holder neither completes nor reschedules the
 * entry by then, the entry is simply due again.
 *
 * KEYS: 1 due zset, 2 entry hash (claim: none; the entry key prefix comes in ARGV).
 */
const NOW = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/**
 * Store-if-absent, claimed. ARGV: 1 webhookId, 2 claim, 3 lease ms, 4 max entries (0 = unbounded),
 * 5 ttl ms, 6 url, 7 payload, 8 '1' when an authorization follows, 9 authorization.
 * Returns 'ok' | 'exists' | 'full'.
 */
export const ENQUEUE_CALLBACK: LuaScript = lua(`${NOW}
if redis.call('EXISTS', KEYS[2]) == 1 then return 'exists' end
local max = tonumber(ARGV[4])
if max > 0 and redis.call('ZCARD', KEYS[1]) >= max then return 'full' end
redis.call('HSET', KEYS[2], 'url', ARGV[6], 'payload', ARGV[7], 'attempts', '0', 'claim', ARGV[2])
if ARGV[8] == '1' then redis.call('HSET', KEYS[2], 'authorization', ARGV[9]) end
redis.call('PEXPIRE', KEYS[2], ARGV[5])
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[1])
return 'ok'
`);

/**
 * Claims due entries. ARGV: 1 entry key prefix, 2 claim, 3 lease ms, 4 limit.
 * Returns {{webhookId, url, payload, authorization or nil, attempts}, …}.
 */
export const CLAIM_CALLBACKS: LuaScript = lua(`${NOW}
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[4]))
local claimed = {}
for _, id in ipairs(ids) do
  local key = ARGV[1] .. id
  local f = redis.call('HMGET', key, 'url', 'payload', 'attempts', 'authorization')
  if f[1] and f[2] then
    redis.call('HSET', key, 'claim', ARGV[2])
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), id)
    claimed[#claimed + 1] = {id, f[1], f[2], f[3] or '0', f[4]}
  else
    -- Its hash expired (retention): nothing left to deliver.
    redis.call('ZREM', KEYS[1], id)
  end
end
return claimed
`);

/** Deletes a delivered or abandoned entry if the claim still holds. ARGV: 1 webhookId, 2 claim. */
export const COMPLETE_CALLBACK: LuaScript = lua(`
if redis.call('HGET', KEYS[2], 'claim') ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[1], ARGV[1])
return 1
`);

/**
 * Releases a claim and schedules the next attempt. ARGV: 1 webhookId, 2 claim, 3 attempts,
 * 4 delay ms.
 */
export const RESCHEDULE_CALLBACK: LuaScript = lua(`${NOW}
if redis.call('HGET', KEYS[2], 'claim') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], 'attempts', ARGV[3], 'claim', '')
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[1])
return 1
`);
