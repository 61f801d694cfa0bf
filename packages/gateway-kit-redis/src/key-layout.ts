/*
 * Where the stores' keys live on a Redis Cluster. Redis Cluster puts a key in one of 16 384 hash
 * slots, CRC16(tag) mod 16384, where the tag is the part of the name between the first `{` and the
 * next `}` (the whole name when there is none). A script may only touch keys of one slot, so the
 * keys one script touches together share a tag: the tag of one of `buckets` buckets.
 *
 * - A job, its lease and the indexes its scripts touch (active, finished, unannounced,
 *   sweep claim) live in the bucket of the job id.
 * - What a principal's bounds count (its callback queue, bytes and entries; its finished-jobs
 *   index) lives in the bucket of the principal, so a bound check and the write it guards are one
 *   script, and exact.
 * - A record and its expiry-index entry live in the bucket of the record key.
 * The same layout runs on one node, where the tags change nothing: one code path.
 */

import type { Refuse } from '@svc/gateway-kit/store';

/** Default number of buckets on a cluster: on 3 primaries each serves 21 or 22 of the 64. */
export const DEFAULT_BUCKETS = 64;

/**
 * The default `buckets`: 64 on a Redis Cluster (spread over the primaries); 1 on one node, where
 * buckets spread nothing and one bucket keeps every store-wide bound exact and a principal's
 * finished jobs in one index.
 *
 * @example
 * defaultBuckets(false); // 1
 */
export function defaultBuckets(cluster: boolean): number {
  return cluster ? DEFAULT_BUCKETS : 1;
}
/** Most buckets a store may use (each bucket's tag is searched for at start-up). */
export const MAX_BUCKETS = 1_024;

const encoder = new TextEncoder();

/** CRC16/XMODEM, the checksum Redis Cluster maps keys to slots with. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of encoder.encode(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/**
 * The hash slot of a key, as Redis Cluster computes it (`CLUSTER KEYSLOT`).
 *
 * @example
 * slotOf('svc:gw:{b3.0}:active'); // the slot of the tag 'b3.0'
 */
export function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % 16_384;
  }
  return crc16(key) % 16_384;
}

const tagCache = new Map<number, readonly string[]>();

/**
 * The tag of each of `buckets` buckets, chosen so bucket `i`'s slot falls in the `i`-th
 * `1/buckets` of the slot range: a cluster whose primaries serve equal contiguous ranges (what
 * `redis-cli --cluster create` and managed services set up) gets an even share of the buckets.
 *
 * @example
 * bucketTags(64)[0]; // 'b0.…', a tag whose slot is in 0 … 255
 */
export function bucketTags(buckets: number): readonly string[] {
  let tags = tagCache.get(buckets);
  if (!tags) {
    const width = 16_384 / buckets;
    tags = Array.from({ length: buckets }, (_, bucket) => {
      for (let n = 0; ; n++) {
        const tag = `b${bucket}.${n}`;
        if (Math.floor((crc16(tag) % 16_384) / width) === bucket) return tag;
      }
    });
    tagCache.set(buckets, tags);
  }
  return tags;
}

/** FNV-1a (32 bits) of a string: stable across versions and processes. */
function fnv1a(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The store's share of a store-wide bound in one bucket: `total` split over the buckets so that
 * the shares add up to exactly `total` (the first `total mod buckets` buckets hold one more).
 * `0` (unbounded) stays `0`.
 */
export function bucketShare(total: number, buckets: number, bucket: number): number {
  if (total === 0) return 0;
  return Math.floor(total / buckets) + (bucket < total % buckets ? 1 : 0);
}

/**
 * Checks the `buckets` option and the store-wide bounds against it: each bucket holds its share
 * of a bound, so a bound below the number of buckets would leave buckets that can hold nothing.
 *
 * @example
 * checkBuckets(refusalFor('new RedisJobStore'), 64, { maxJobs: 100_000 }); // passes
 * @throws {GatewayConfigError} naming the option and the fix.
 */
export function checkBuckets(
  refuse: Refuse,
  buckets: number,
  bounds: Readonly<Record<string, number>>,
): void {
  if (!Number.isSafeInteger(buckets) || buckets < 1 || buckets > MAX_BUCKETS)
    refuse('buckets', buckets, `expected an integer from 1 to ${MAX_BUCKETS}.`);
  for (const [name, value] of Object.entries(bounds))
    if (value < buckets)
      refuse(
        name,
        value,
        `expected at least buckets (${buckets}): each bucket holds an equal share of it. Give buckets: 1 for a small exact store-wide bound.`,
      );
}

/**
 * The key names of one store: `prefix` + `{bucket tag}:` + name. Every name a script builds
 * itself starts with the bucket prefix it was given, so it shares the bucket's slot.
 *
 * @example
 * const keys = new KeyLayout('svc:gw:', 64);
 * keys.job('job_0123'); // 'svc:gw:{b17.3}:job:job_0123'
 */
export class KeyLayout {
  readonly prefix: string;
  readonly buckets: number;
  readonly #tags: readonly string[];

  constructor(prefix: string, buckets: number) {
    this.prefix = prefix;
    this.buckets = buckets;
    this.#tags = bucketTags(buckets);
  }

  /** The bucket (0 … buckets-1) of a job id, principal or record key. */
  bucketOf(id: string): number {
    return this.buckets === 1 ? 0 : fnv1a(id) % this.buckets;
  }

  /** `prefix{tag}:`, the start of every key of bucket `bucket`. */
  base(bucket: number): string {
    return `${this.prefix}{${this.#tags[bucket]}}:`;
  }

  /** The base of the bucket `id` falls in. */
  baseOf(id: string): string {
    return this.base(this.bucketOf(id));
  }

  job(jobId: string): string {
    return `${this.baseOf(jobId)}job:${jobId}`;
  }

  lease(jobId: string): string {
    return `${this.baseOf(jobId)}lease:${jobId}`;
  }

  /** The outbox keys' start for a principal's bucket: `prefix{tag}:cb:`. */
  outbox(bucket: number): string {
    return `${this.base(bucket)}cb:`;
  }

  /** The retention group's index of finished jobs (in the group's owner bucket). */
  kept(group: string): string {
    return `${this.baseOf(group)}kept:${group}`;
  }
}

/** The default key prefix. */
export function defaultPrefix(): string {
  return 'svc:gw:';
}

/**
 * A prefix must not hold a hash tag: on a cluster its `{…}` would win over the buckets' tags and
 * put every key of the store in one slot, and the scripts find a key's bucket by its first `{`.
 *
 * @example
 * checkPrefix(refusalFor('new RedisJobStore'), 'svc:gw:'); // passes
 * @throws {GatewayConfigError} naming the fix (the prefix itself is not quoted).
 */
export function checkPrefix(refuse: Refuse, prefix: string): void {
  if (prefix.includes('{') || prefix.includes('}'))
    refuse(
      'prefix',
      prefix,
      "expected no '{' or '}' (the store adds a hash tag per bucket so its keys spread over a Redis Cluster).",
    );
}
