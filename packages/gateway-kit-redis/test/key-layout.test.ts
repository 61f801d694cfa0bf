import { randomBytes } from 'node:crypto';
import { GatewayConfigError } from '@svc/gateway-kit/store';
import { describe, expect, it } from 'vitest';
import { RedisJobStore, RedisRecordStore } from '../src/index.ts';
import { bucketShare, bucketTags, DEFAULT_BUCKETS, KeyLayout, slotOf } from '../src/key-layout.ts';

// The slot split `redis-cli --cluster create` makes for 3 primaries.
const THREE_PRIMARIES = [
  [0, 5460],
  [5461, 10922],
  [10923, 16383],
] as const;
const primaryOf = (slot: number): number =>
  THREE_PRIMARIES.findIndex(([first, last]) => slot >= first && slot <= last);

describe('the key layout', () => {
  it('puts a job, its lease and its bucket indexes in one slot, and the bucket tag wins over the id', () => {
    const keys = new KeyLayout('svc:gw:', DEFAULT_BUCKETS);
    const jobId = 'job_{weird}_id';
    const base = keys.baseOf(jobId);
    const slots = new Set(
      [keys.job(jobId), keys.lease(jobId), `${base}active`, `${base}finished:"owner"`].map(slotOf),
    );
    expect(slots.size).toBe(1);
  });

  it('spreads the 64 default buckets evenly over 3 primaries (21 or 22 each)', () => {
    const perPrimary = [0, 0, 0];
    for (const tag of bucketTags(DEFAULT_BUCKETS)) perPrimary[primaryOf(slotOf(`{${tag}}`))]! += 1;
    expect(perPrimary.sort()).toEqual([21, 21, 22]);
  });

  it('2 000 random job ids: no primary of 3 holds more than 40 % of the jobs', () => {
    const keys = new KeyLayout('svc:gw:', DEFAULT_BUCKETS);
    const perPrimary = [0, 0, 0];
    for (let i = 0; i < 2_000; i++)
      perPrimary[primaryOf(slotOf(keys.job(`job_${randomBytes(16).toString('hex')}`)))]! += 1;
    expect(Math.max(...perPrimary)).toBeLessThan(800);
  });

  it('splits a store-wide bound into per-bucket shares that add up to exactly the bound', () => {
    for (const total of [64, 100, 100_000, 1_000_003]) {
      const shares = Array.from({ length: 64 }, (_, b) => bucketShare(total, 64, b));
      expect(shares.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
    }
    expect(bucketShare(0, 64, 3)).toBe(0);
  });

  it('refuses a store-wide bound below the number of buckets, and a prefix with a hash tag', () => {
    expect(() => new RedisJobStore({ maxJobs: 5, buckets: 64 })).toThrow(
      /^new RedisJobStore: maxJobs is the number 5: expected at least buckets \(64\).*buckets: 1/,
    );
    expect(() => new RedisJobStore({ maxPendingCallbacks: 10, buckets: 64 })).toThrow(
      GatewayConfigError,
    );
    expect(() => new RedisRecordStore({ maxRecords: 3, buckets: 64 })).toThrow(
      /^new RedisRecordStore: maxRecords is .*: expected at least buckets/,
    );
    expect(() => new RedisJobStore({ buckets: 0 })).toThrow(
      /^new RedisJobStore: buckets is .*: expected an integer from 1 to 1024\.$/,
    );
    expect(() => new RedisJobStore({ buckets: 1_025 })).toThrow(GatewayConfigError);
    expect(
      () =>
        new RedisJobStore({
          cluster: { rootNodes: [{ url: 'redis://127.0.0.1:1' }] },
          prefix: '{gw}:',
        }),
    ).toThrow(/^new RedisJobStore: prefix is .*: expected no '\{' or '\}'/);
    expect(() => new RedisRecordStore({ prefix: 'a{b}:' })).toThrow(GatewayConfigError);
  });
});
