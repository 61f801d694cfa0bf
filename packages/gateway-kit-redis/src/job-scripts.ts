import { canTransition, isTerminal } from '@svc/gateway-kit/store';
import { type LuaScript, lua } from './redis-connection.ts';

// The contract's job statuses; the legal moves between them come from gateway-kit itself, so the
// Lua scripts enforce exactly the rules of `MemoryJobStore`.
const STATUSES = ['queued', 'running', 'completed', 'failed', 'cancelled'] as const;

const legal = STATUSES.flatMap((from) =>
  STATUSES.filter((to) => canTransition(from, to)).map((to) => `['${from}>${to}']=true`),
);
const terminal = STATUSES.filter((status) => isTerminal(status)).map((s) => `${s}=true`);

/*
 * A job is a hash. `status`, `version`, `cancelRequested` ('0'/'1') and `updatedAt` (epoch ms of
 * Redis' clock) are plain values the scripts read; every other field holds the JSON of one
 * StoredJob field, written by JavaScript and never parsed in Lua (cjson would round numbers and
 * turn empty arrays into objects).
 *
 * Every key of a job script is in the job's bucket (see key-layout.ts). Job scripts share KEYS:
 * 1 job hash, 2 active set (queued + running: every one of them is leased, a queued job to the
 * instance that created it and runs it, so this is also the set the sweeper scans),
 * 3 finished zset (member jobId, score finish sequence), 4 finish sequence counter, 5 lease,
 * 6 unannounced zset (member jobId, score: Redis ms after which another instance reports the
 * finished job, unless the gateway announced it first: see CLAIM_UNANNOUNCED). The job hash's
 * `kept` field names its principal's index of finished jobs (see KEEP_FINISHED); on one node the
 * terminal scripts update it themselves ('inline').
 *
 * A job created with a claim on its owner's budgets (RedisJobStore.claimsJobQuotas) has its id in
 * the owner's <bucket>quota:jobs:<ownerId JSON> zset, which also stands for its first unit, and one
 * member per further unit (<id>#1, <id>#2, …) in <bucket>quota:units:<ownerId JSON>, both scored by
 * the Redis ms at which the claim frees itself: the owner holds as many units as the two sets have
 * members, and a job of one unit (a request under 16 KiB) writes no unit member. Its hash's `quota`
 * field holds its units until the terminal write gives them back.
 *
 * Every script runs its prelude on each call, so the create's holds only what it uses.
 */
const CREATE_PRELUDE = `
-- Redis' clock, never behind the previous write: updatedAt must not go backwards.
local function now_ms(previous)
  local t = redis.call('TIME')
  local ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  if previous and ms < previous then return previous end
  return ms
end
local function take_lease(owner, lease_ms)
  redis.call('SET', KEYS[5], owner, 'PX', lease_ms)
end
-- The keys of an owner's budgets (ownerId as its JSON), in the bucket whose keys start with base.
local function quota_keys(base, owner)
  return base .. 'quota:jobs:' .. owner, base .. 'quota:units:' .. owner
end
-- The members of a job's units past its first (its member in the jobs set), with scores when
-- given expires; an empty list for a job of one unit.
local function unit_members(id, units, expires)
  local members = {}
  for k = 1, units - 1 do
    if expires then members[#members + 1] = expires end
    members[#members + 1] = id .. '#' .. k
  end
  return members
end
`;

const PRELUDE = `${CREATE_PRELUDE}
local LEGAL = {${legal.join(',')}}
local TERMINAL = {${terminal.join(',')}}
-- Each principal keeps at most share finished jobs: a zset per owner (<finished>:<ownerId
-- JSON>, score: finish sequence) whose earliest-finished jobs are evicted past it, and
-- <finished>:owners ranks owners by how many they keep (for eviction when the store is full).
-- Whose share a finished job counts in: its owner's, or apart for a job an approval runs.
local function group_of(owner, approval)
  if approval then return (owner or '') .. ':approved' end
  return owner or ''
end
local function keep_share(finished, job_prefix, owner, id, seq, share, ttl_ms)
  local mine = finished .. ':' .. owner
  redis.call('ZADD', mine, seq, id)
  -- Gone by itself once every job in it expired.
  redis.call('PEXPIRE', mine, ttl_ms)
  local count = redis.call('ZCARD', mine)
  while count > share do
    local oldest = redis.call('ZPOPMIN', mine)
    redis.call('DEL', job_prefix .. oldest[1])
    redis.call('ZREM', finished, oldest[1])
    count = count - 1
  end
  redis.call('ZADD', finished .. ':owners', count, owner)
  redis.call('PEXPIRE', finished .. ':owners', ttl_ms)
end
-- A principal's index of finished jobs across buckets (members: job keys, score: Redis µs): past
-- share its earliest leave it and are returned.
local function kept_add(kept, member, share, ttl_ms, score)
  redis.call('ZADD', kept, 'NX', score, member)
  redis.call('PEXPIRE', kept, ttl_ms)
  local over = redis.call('ZCARD', kept) - share
  if over <= 0 then return {} end
  local popped = redis.call('ZPOPMIN', kept, over)
  local members = {}
  for i = 1, #popped, 2 do members[#members + 1] = popped[i] end
  return members
end
-- Deletes a job its principal's index evicted, if it is still finished; member is its key
-- (<prefix>{tag}:job:<id>: the prefix holds no braces).
local function evict_kept(member, group)
  local open = string.find(member, '{', 1, true)
  local close = open and string.find(member, '}', open, true)
  if not close then return 0 end
  local status = redis.call('HGET', member, 'status')
  if not status or not TERMINAL[status] then return 0 end
  local base = string.sub(member, 1, close + 1)
  local id = string.sub(member, close + 6)
  redis.call('DEL', member)
  local finished = base .. 'finished'
  redis.call('ZREM', finished, id)
  local mine = finished .. ':' .. group
  if redis.call('ZREM', mine, id) == 1 then
    redis.call('ZADD', finished .. ':owners', redis.call('ZCARD', mine), group)
  end
  return 1
end
-- Gives back what the job's create claimed (units: its 'quota' field; none without a claim).
local function release_quota(job, id, owner, units)
  units = tonumber(units)
  if not units or not owner then return end
  local jobs, held = quota_keys(string.sub(job, 1, #job - #id - 4), owner)
  redis.call('ZREM', jobs, id)
  if units > 1 then redis.call('ZREM', held, unpack(unit_members(id, units))) end
end
-- A finished job leaves the active set, drops its lease, joins the finish order
-- (eviction order), expires after the retention period, and waits in the unannounced set until
-- the gateway has handed its end over (callback queued), or for grace_ms at most.
-- It also drops 'request' (the caller's input and context): a finished job keeps none of it.
-- quota_owner and units: the job's ownerId JSON and 'quota' field, read before this write.
local function finish(id, now, retention_ms, grace_ms, share, inline, owner, quota_owner, units)
  release_quota(KEYS[1], id, quota_owner, units)
  redis.call('HDEL', KEYS[1], 'request', 'quota')
  redis.call('PEXPIRE', KEYS[1], retention_ms)
  redis.call('SREM', KEYS[2], id)
  redis.call('DEL', KEYS[5])
  local seq = redis.call('INCR', KEYS[4])
  redis.call('ZADD', KEYS[3], seq, id)
  redis.call('ZADD', KEYS[6], now + tonumber(grace_ms), id)
  keep_share(KEYS[3], string.sub(KEYS[1], 1, #KEYS[1] - #id), owner, id, seq, tonumber(share), retention_ms)
  -- On one node with several buckets (inline '1') the principal's share across buckets is kept
  -- here, in the index named by the job's 'kept' field; on a cluster that index is in another
  -- slot, and the store runs KEEP_FINISHED after this script; with one bucket the bucket's own
  -- per-principal index above is that index.
  local kept = inline == '1' and redis.call('HGET', KEYS[1], 'kept')
  if kept then
    local t = redis.call('TIME')
    local score = tonumber(t[1]) * 1000000 + tonumber(t[2])
    for _, member in ipairs(kept_add(kept, KEYS[1], tonumber(share), retention_ms, score)) do
      evict_kept(member, owner)
    end
  end
end
local function append(target, from)
  for i = from, #ARGV do target[#target + 1] = ARGV[i] end
  return target
end
`;

/**
 * Create-if-absent. ARGV: 1 jobId, 2 status, 3 the bucket's share of maxJobs (0 = unbounded),
 * 4 job key prefix of the bucket, 5 lease owner, 6 lease ms, 7 the owner's ID JSON for a claim on
 * its budgets ('' for none), 8 most active jobs, 9 the job's units, 10 most units, 11 claim ttl ms,
 * 12… field/value pairs (with a claim: 'quota' and the units among them).
 * Returns {'exists', fields} | {'created', updatedAt} | {'full'} | {'quota', 'activeJobs' |
 * 'heldBytes'}: a created job is what the caller wrote, so it is not read back; a refused claim
 * writes nothing.
 */
export const CREATE_JOB: LuaScript = lua(`${CREATE_PRELUDE}
if redis.call('EXISTS', KEYS[1]) == 1 then return {'exists', redis.call('HGETALL', KEYS[1])} end
local now = now_ms(nil)
local claim_jobs, claim_units, units
if ARGV[7] ~= '' then
  claim_jobs, claim_units = quota_keys(string.sub(ARGV[4], 1, #ARGV[4] - 4), ARGV[7])
  units = tonumber(ARGV[9])
  local max_jobs, max_units = tonumber(ARGV[8]), tonumber(ARGV[10])
  local function spent()
    local jobs = redis.call('ZCARD', claim_jobs)
    if jobs >= max_jobs then return 'activeJobs' end
    if jobs + redis.call('ZCARD', claim_units) + units > max_units then return 'heldBytes' end
  end
  -- Expired claims (their job's end never written) leave only when the count matters: until then
  -- they only make it larger, never let a job in that should not be.
  if spent() then
    redis.call('ZREMRANGEBYSCORE', claim_jobs, '-inf', now)
    redis.call('ZREMRANGEBYSCORE', claim_units, '-inf', now)
    local refused = spent()
    if refused then return {'quota', refused} end
  end
end
local max = tonumber(ARGV[3])
if max > 0 then
  local count = redis.call('SCARD', KEYS[2]) + redis.call('ZCARD', KEYS[3])
  if count >= max then
    -- Finish order is expiry order: first drop index entries of jobs whose retention ran out
    -- (they count until then, so the index never holds more than the share).
    for _ = 1, 100 do
      local head = redis.call('ZRANGE', KEYS[3], 0, 0)
      if #head == 0 or redis.call('EXISTS', ARGV[4] .. head[1]) == 1 then break end
      redis.call('ZREM', KEYS[3], head[1])
      count = count - 1
    end
  end
  local owners = KEYS[3] .. ':owners'
  while count >= max do
    -- Evict the earliest-finished job of the owner keeping the most; active jobs never are.
    local heavy = redis.call('ZREVRANGE', owners, 0, 0)
    if #heavy == 0 then
      -- Jobs finished before per-owner shares existed: the global finish order.
      local oldest = redis.call('ZPOPMIN', KEYS[3])
      if #oldest == 0 then return {'full'} end
      redis.call('DEL', ARGV[4] .. oldest[1])
      count = count - 1
    else
      local mine = KEYS[3] .. ':' .. heavy[1]
      local oldest = redis.call('ZPOPMIN', mine)
      if #oldest == 0 then
        redis.call('ZREM', owners, heavy[1])
      else
        redis.call('DEL', ARGV[4] .. oldest[1])
        if redis.call('ZREM', KEYS[3], oldest[1]) == 1 then count = count - 1 end
        redis.call('ZADD', owners, redis.call('ZCARD', mine), heavy[1])
      end
    end
  end
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'version', 1, 'cancelRequested', '0', 'updatedAt', now, unpack(ARGV, 12))
redis.call('SADD', KEYS[2], ARGV[1])
if claim_jobs then
  local expires = now + tonumber(ARGV[11])
  redis.call('ZADD', claim_jobs, expires, ARGV[1])
  if units > 1 then redis.call('ZADD', claim_units, unpack(unit_members(ARGV[1], units, expires))) end
end
-- Leased from creation: an instance that dies before starting its queued job must not strand it.
take_lease(ARGV[5], ARGV[6])
return {'created', now}
`);

/**
 * Compare-and-set. ARGV: 1 jobId, 2 expected version, 3 new status or '', 4 retention ms,
 * 5 lease owner, 6 lease ms, 7 finished jobs kept per owner, 8 inline ('1' on one node),
 * 9 the updatedAt the writer knows the job at (or ''), 10… field/value pairs.
 * Returns {'ok' | 'conflict' | 'invalid_transition', fields} | {'not_found'}, or {'ok', updatedAt}
 * when the job was at ARGV[9] too: the writer wrote it last, so it knows every other field (every
 * write of a job hash moves its version and its time).
 */
export const UPDATE_JOB: LuaScript = lua(`${PRELUDE}
local current = redis.call('HMGET', KEYS[1], 'status', 'version', 'updatedAt', 'ownerId', 'approvalId', 'quota')
local from = current[1]
if not from then return {'not_found'} end
-- Version first: a stale writer must re-read before learning anything else.
if tonumber(current[2]) ~= tonumber(ARGV[2]) then return {'conflict', redis.call('HGETALL', KEYS[1])} end
local to = ARGV[3]
local allowed
if to == '' then
  allowed = not TERMINAL[from]
  to = from
else
  allowed = LEGAL[from .. '>' .. to] == true
end
if not allowed then return {'invalid_transition', redis.call('HGETALL', KEYS[1])} end
local now = now_ms(tonumber(current[3]))
local fields = append({'status', to, 'version', tonumber(current[2]) + 1, 'updatedAt', now}, 10)
redis.call('HSET', KEYS[1], unpack(fields))
if to == 'running' and from ~= 'running' then take_lease(ARGV[5], ARGV[6]) end
if TERMINAL[to] then
  finish(ARGV[1], now, ARGV[4], ARGV[6], ARGV[7], ARGV[8], group_of(current[4], current[5]), current[4], current[6])
end
if ARGV[9] ~= '' and tonumber(ARGV[9]) == tonumber(current[3]) then return {'ok', now} end
return {'ok', redis.call('HGETALL', KEYS[1])}
`);

/**
 * Cancels a queued or running job and PUBLISHes its id on the cancel channel, atomically.
 * ARGV: 1 jobId, 2 retention ms, 3 cancel channel ('' for none), 4 grace ms (unannounced),
 * 5 finished jobs kept per owner, 6 inline ('1' on one node).
 * Returns {'ok' | 'invalid_transition', fields} | {'not_found'}.
 */
export const CANCEL_JOB: LuaScript = lua(`${PRELUDE}
local current = redis.call('HMGET', KEYS[1], 'status', 'version', 'updatedAt', 'ownerId', 'approvalId', 'quota')
if not current[1] then return {'not_found'} end
if TERMINAL[current[1]] then return {'invalid_transition', redis.call('HGETALL', KEYS[1])} end
local now = now_ms(tonumber(current[3]))
redis.call('HSET', KEYS[1], 'status', 'cancelled', 'cancelRequested', '1',
  'version', tonumber(current[2]) + 1, 'updatedAt', now)
finish(ARGV[1], now, ARGV[2], ARGV[4], ARGV[5], ARGV[6], group_of(current[4], current[5]), current[4], current[6])
-- On a cluster the store publishes on the job's sharded channel itself (ARGV[3] is '').
if ARGV[3] ~= '' then redis.call('PUBLISH', ARGV[3], ARGV[1]) end
return {'ok', redis.call('HGETALL', KEYS[1])}
`);

/**
 * Renews this instance's leases of one bucket. KEYS: 1 the bucket's active set (routes the script
 * to the bucket's node). ARGV: 1 bucket key prefix, 2 owner, 3 lease ms, 4… jobIds of the bucket.
 * Returns the ids this instance should stop renewing (no longer running, or leased by another).
 */
export const RENEW_LEASES: LuaScript = lua(`
local done = {}
for i = 4, #ARGV do
  local id = ARGV[i]
  local lease = ARGV[1] .. 'lease:' .. id
  local status = redis.call('HGET', ARGV[1] .. 'job:' .. id, 'status')
  if status ~= 'running' and status ~= 'queued' then
    done[#done + 1] = id
  else
    local owner = redis.call('GET', lease)
    if owner == ARGV[2] then
      redis.call('PEXPIRE', lease, ARGV[3])
    elseif not owner then
      -- Lapsed (e.g. Redis was unreachable for a while) but not swept yet: still ours to run.
      redis.call('SET', lease, ARGV[2], 'PX', ARGV[3])
    else
      done[#done + 1] = id
    end
  end
end
return done
`);

/**
 * Fails queued or running jobs of one bucket whose lease expired (their instance died) with the
 * given error: one SSCAN page of the bucket's active set per call.
 * KEYS: 1 active set, 2 finished zset, 3 finish sequence, 4 unannounced zset, 5 sweep claim.
 * ARGV: 1 bucket key prefix, 2 retention ms, 3 error JSON, 4 grace ms, 5 finished jobs kept per
 * owner, 6 claim owner, 7 claim ms ('0': sweep without claiming), 8 cursor, 9 page.
 * With a claim, the first page (cursor '0') takes the bucket's sweep claim (SET NX PX) and sweeps
 * nothing when another instance holds it. Returns {next cursor, {id, retention group, …}, claimed,
 * entries in the unannounced set}.
 */
export const SWEEP_LEASES: LuaScript = lua(`${PRELUDE}
if ARGV[8] == '0' and tonumber(ARGV[7]) > 0 then
  -- Nothing to sweep: no claim taken, nothing written.
  if redis.call('EXISTS', KEYS[1], KEYS[4]) == 0 then return {'0', {}, 1, 0} end
  if not redis.call('SET', KEYS[5], ARGV[6], 'NX', 'PX', ARGV[7]) then return {'0', {}, 0, 0} end
end
local page = redis.call('SSCAN', KEYS[1], ARGV[8], 'COUNT', tonumber(ARGV[9]))
local failed = {}
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for _, id in ipairs(page[2]) do
  local job = ARGV[1] .. 'job:' .. id
  local current = redis.call('HMGET', job, 'status', 'version', 'updatedAt', 'ownerId', 'approvalId', 'quota')
  if current[1] ~= 'running' and current[1] ~= 'queued' then
    redis.call('SREM', KEYS[1], id)
  elseif redis.call('EXISTS', ARGV[1] .. 'lease:' .. id) == 0 then
    local updated = math.max(now, tonumber(current[3]))
    redis.call('HSET', job, 'status', 'failed', 'version', tonumber(current[2]) + 1,
      'updatedAt', updated, 'error', ARGV[3])
    release_quota(job, id, current[4], current[6])
    redis.call('HDEL', job, 'request', 'quota')
    redis.call('PEXPIRE', job, ARGV[2])
    redis.call('SREM', KEYS[1], id)
    local seq = redis.call('INCR', KEYS[3])
    redis.call('ZADD', KEYS[2], seq, id)
    -- Reported by the sweeping instance now; by another one if it dies before announcing it.
    redis.call('ZADD', KEYS[4], now + tonumber(ARGV[4]), id)
    local owner = group_of(current[4], current[5])
    keep_share(KEYS[2], ARGV[1] .. 'job:', owner, id, seq, tonumber(ARGV[5]), ARGV[2])
    failed[#failed + 1] = id
    failed[#failed + 1] = owner
  end
end
return {page[1], failed, 1, redis.call('ZCARD', KEYS[4])}
`);

/**
 * On a cluster, after their terminal writes: finished jobs join their retention groups' indexes
 * (in the groups' bucket; a principal's finished jobs are spread over the buckets of their ids);
 * past the share a group's earliest-finished jobs leave its index and are returned for
 * {@link EVICT_FINISHED}. Idempotent (ZADD NX): a retry keeps the first score.
 * KEYS: the groups' indexes (one bucket). ARGV: 1 share, 2 ttl ms, then per key its group name,
 * then pairs (key index, job key). Returns {job key, group, …} evicted.
 */
export const KEEP_FINISHED: LuaScript = lua(`
local t = redis.call('TIME')
-- Microseconds of Redis' clock, plus the position in this batch: finish order.
local base = tonumber(t[1]) * 1000000 + tonumber(t[2])
local n = 0
for i = 3 + #KEYS, #ARGV, 2 do
  redis.call('ZADD', KEYS[tonumber(ARGV[i])], 'NX', base + n, ARGV[i + 1])
  n = n + 1
end
local evicted = {}
for k = 1, #KEYS do
  redis.call('PEXPIRE', KEYS[k], ARGV[2])
  local over = redis.call('ZCARD', KEYS[k]) - tonumber(ARGV[1])
  if over > 0 then
    -- ZPOPMIN answers member, score, member, score, …
    local popped = redis.call('ZPOPMIN', KEYS[k], over)
    for i = 1, #popped, 2 do
      evicted[#evicted + 1] = popped[i]
      evicted[#evicted + 1] = ARGV[2 + k]
    end
  end
end
return evicted
`);

/**
 * Deletes finished jobs their groups' indexes evicted, if still finished (one job bucket).
 * KEYS: 1 the bucket's finished zset (routes the script). ARGV: pairs (job key, group).
 * Returns how many it deleted.
 */
export const EVICT_FINISHED: LuaScript = lua(`${PRELUDE}
local deleted = 0
for i = 1, #ARGV, 2 do deleted = deleted + evict_kept(ARGV[i], ARGV[i + 1]) end
return deleted
`);

/**
 * Claims finished jobs nobody announced in time (the instance that finished them died between its
 * terminal write and handing the callback over): each due entry's time moves `grace ms` ahead, so
 * one instance at a time reports it; entries of jobs that no longer exist are dropped.
 * With ARGV[4] = '0' (an instance with nobody to report to) it only drops the vanished entries.
 * KEYS: 1 the bucket's unannounced zset. ARGV: 1 job key prefix of the bucket, 2 grace ms, 3 limit, 4 claim ('1' or '0').
 * Returns the claimed ids, and how many due entries it looked at.
 */
export const CLAIM_UNANNOUNCED: LuaScript = lua(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local claimed = {}
for _, id in ipairs(due) do
  if redis.call('EXISTS', ARGV[1] .. id) == 0 then
    redis.call('ZREM', KEYS[1], id)
  elseif ARGV[4] == '1' then
    redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), id)
    claimed[#claimed + 1] = id
  end
end
return {claimed, #due}
`);
