import { type LuaScript, lua } from './redis-connection.ts';

/*
 * A record is a hash { value: JSON, version } with a PX expiry. One sorted set indexes records:
 * `rec-expiry` (member key, score expiry ms) for pruning and capacity.
 *
 * Shared KEYS: 1 the record's hash, 2 the expiry index. Shared ARGV: 1 record key (as the gateway
 * names it), 2 key prefix of this store (pruning checks other records under it).
 */
const PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function forget(key)
  redis.call('ZREM', KEYS[2], key)
end
-- Drops index entries of records that expired (bounded work per call).
local function prune(now, limit)
  local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now, 'LIMIT', 0, limit)
  for _, key in ipairs(expired) do
    if redis.call('EXISTS', ARGV[2] .. 'rec:' .. key) == 0 then forget(key) end
  end
end
`;

/**
 * Create-if-absent. ARGV: 1 key, 2 prefix, 3 value JSON, 4 ttl ms, 5 max records (0 = unbounded).
 * Returns {1, value, version} when created, {0, value, version} when it existed, {-1} when full.
 */
export const CREATE_RECORD: LuaScript = lua(`${PRELUDE}
local record = KEYS[1]
local now = now_ms()
prune(now, 100)
local current = redis.call('HMGET', record, 'value', 'version')
if current[1] then return {0, current[1], tonumber(current[2])} end
local max = tonumber(ARGV[5])
if max > 0 and redis.call('ZCARD', KEYS[2]) >= max then
  prune(now, 10000)
  if redis.call('ZCARD', KEYS[2]) >= max then return {-1} end
end
redis.call('HSET', record, 'value', ARGV[3], 'version', 1)
redis.call('PEXPIRE', record, ARGV[4])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[1])
return {1, ARGV[3], 1}
`);

/**
 * Compare-and-set replace. ARGV: 1 key, 2 prefix, 3 expected version, 4 value JSON, 5 ttl ms.
 * Returns the new version, or nil on conflict or absence.
 */
export const REPLACE_RECORD: LuaScript = lua(`${PRELUDE}
local record = KEYS[1]
local version = redis.call('HGET', record, 'version')
if not version or tonumber(version) ~= tonumber(ARGV[3]) then return false end
local next_version = tonumber(version) + 1
redis.call('HSET', record, 'value', ARGV[4], 'version', next_version)
redis.call('PEXPIRE', record, ARGV[5])
redis.call('ZADD', KEYS[2], now_ms() + tonumber(ARGV[5]), ARGV[1])
return next_version
`);

/** Compare-and-delete. ARGV: 1 key, 2 prefix, 3 expected version. Returns 1 if deleted, else 0. */
export const DELETE_RECORD: LuaScript = lua(`${PRELUDE}
local record = KEYS[1]
local version = redis.call('HGET', record, 'version')
if not version or tonumber(version) ~= tonumber(ARGV[3]) then return 0 end
redis.call('DEL', record)
forget(ARGV[1])
return 1
`);

/*
 * Time-ordered sets (quotas and the approvals index): a sorted set per name, member → expiry ms
 * (Redis clock), pruned of expired members on every read and on a write whose count matters (a
 * bound reached, or no bound: see ADD_TO_SETS), so a bounded set holds at most its bound of
 * expired members; itself expiring with its last member.
 */
const SET_PRELUDE = `
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local now = now_ms()
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
`;

/**
 * Adds or extends members of one or more sets, all or none. KEYS: the sets. ARGV: per entry 1 key
 * index, 2 member, 3 ttl ms, 4 max size (-1 = unbounded): a new member is refused when its set
 * holds that many live members (counting the entries before it). Returns -1 when every entry is
 * in its set afterwards (an existing member keeps the later of its two expiries), else the
 * 0-based index of the first entry that did not fit, having written nothing.
 */
export const ADD_TO_SETS: LuaScript = lua(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local count, fresh, seen, pruned = {}, {}, {}, {}
-- Expired members leave a set when its count matters: when a bound is reached (the count then
-- holds live members only), and at once for an unbounded entry. Until then they only make the
-- count larger, never let a member in that should not be.
-- prune(k) answers whether it pruned now (once per set and call).
local function prune(k)
  if pruned[k] then return false end
  pruned[k] = true
  redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', now)
  count[k] = nil
  return true
end
local n = #ARGV / 4
-- Checked first, written after. Members are taken as new until a bound is reached; only then is
-- it worth asking the set which of them it holds already.
for i = 0, n - 1 do
  local k, member, max = tonumber(ARGV[4 * i + 1]), ARGV[4 * i + 2], tonumber(ARGV[4 * i + 4])
  local id = k .. ':' .. member
  if not seen[id] then
    seen[id] = true
    fresh[k] = fresh[k] or {}
    if max >= 0 then
      count[k] = count[k] or redis.call('ZCARD', KEYS[k])
      if count[k] + #fresh[k] >= max and prune(k) then count[k] = redis.call('ZCARD', KEYS[k]) end
      if count[k] + #fresh[k] >= max then
        local really = {}
        for _, m in ipairs(fresh[k]) do
          if not redis.call('ZSCORE', KEYS[k], m) then really[#really + 1] = m end
        end
        fresh[k] = really
        local there = redis.call('ZSCORE', KEYS[k], member)
        if not there and count[k] + #fresh[k] >= max then return i end
        if not there then fresh[k][#fresh[k] + 1] = member end
      else
        fresh[k][#fresh[k] + 1] = member
      end
    else
      prune(k)
      fresh[k][#fresh[k] + 1] = member
    end
  end
end
local adds = {}
for i = 0, n - 1 do
  local k = tonumber(ARGV[4 * i + 1])
  adds[k] = adds[k] or {}
  adds[k][#adds[k] + 1] = now + tonumber(ARGV[4 * i + 3])
  adds[k][#adds[k] + 1] = ARGV[4 * i + 2]
end
for k = 1, #KEYS do
  -- GT: an existing member never moves earlier; a new one is added.
  if adds[k] then redis.call('ZADD', KEYS[k], 'GT', unpack(adds[k])) end
  local last = adds[k] and redis.call('ZRANGE', KEYS[k], -1, -1, 'WITHSCORES')
  if last then redis.call('PEXPIREAT', KEYS[k], math.floor(tonumber(last[2])) + 1) end
end
return -1
`);

/**
 * Live members in expiry order (ties by member), strictly after a cursor. KEYS: 1 set.
 * ARGV: 1 limit, 2 cursor expiry ('' for none), 3 cursor member.
 * Returns {member, expiry, member, expiry, …}.
 */
export const RANGE_OF_SET: LuaScript = lua(`${SET_PRELUDE}
local limit = tonumber(ARGV[1])
local after = ARGV[2] ~= '' and tonumber(ARGV[2]) or nil
local found = {}
local offset = 0
while #found < 2 * limit do
  local page = redis.call('ZRANGEBYSCORE', KEYS[1], after and ARGV[2] or '-inf', '+inf', 'WITHSCORES', 'LIMIT', offset, limit + 16)
  if #page == 0 then break end
  for i = 1, #page, 2 do
    local score = tonumber(page[i + 1])
    if not after or score > after or (score == after and page[i] > ARGV[3]) then
      found[#found + 1] = page[i]
      found[#found + 1] = page[i + 1]
      if #found >= 2 * limit then break end
    end
  end
  offset = offset + #page / 2
end
return found
`);
