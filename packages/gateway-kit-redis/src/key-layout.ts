/*
 * Where the stores' keys live on a Redis Cluster. Redis Cluster puts a key in one of 16 384 hash
 * slots, CRC16(tag) mod 16384, where the tag is the part of the name between the first `{` and the
 * next `}` (the whole name when there is none). A script may only touch keys of one slot, so the
 * keys one script touches together share a tag; structures every instance reads (sweep indexes,
 * the cancel channel) are split into BUCKETS buckets, so no one slot (and no one primary) carries
 * them all.
 */

/** How many buckets the shared indexes and the cancel channel are split into. Part of the key layout: changing it moves keys. */
export const BUCKETS = 16;

/** CRC16/XMODEM, the checksum Redis Cluster maps keys to slots with. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of new TextEncoder().encode(text)) {
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
 * slotOf('svc:gw:{b3}:due'); // the slot of the tag 'b3'
 */
export function slotOf(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % 16_384;
  }
  return crc16(key) % 16_384;
}

/**
 * The tag of each bucket, chosen so bucket `i`'s slot falls in the `i`-th sixteenth of the slot
 * range: a cluster whose primaries serve equal contiguous ranges (what `redis-cli --cluster
 * create` and managed services set up) spreads the buckets evenly over up to 16 primaries.
 */
export const BUCKET_TAGS: readonly string[] = Array.from({ length: BUCKETS }, (_, bucket) => {
  const width = 16_384 / BUCKETS;
  for (let n = 0; ; n++) {
    const tag = `b${bucket}.${n}`;
    if (Math.floor((crc16(tag) % 16_384) / width) === bucket) return tag;
  }
});

/** The bucket (0 … BUCKETS-1) an id belongs to: FNV-1a of the id, so ids spread evenly. */
export function bucketOf(id: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    hash ^= id.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % BUCKETS;
}

/** The default key prefix: on a cluster with a hash tag, so each store's keys share one slot. */
export function defaultPrefix(cluster: boolean): string {
  return cluster ? '{svc:gw}:' : 'svc:gw:';
}

/**
 * On a cluster every key of a store must share one hash slot (its scripts touch several): the
 * prefix must hold a hash tag, e.g. `{acme:gw}:`. Throws a TypeError naming the fix otherwise.
 */
export function checkClusterPrefix(prefix: string): void {
  const open = prefix.indexOf('{');
  const close = open === -1 ? -1 : prefix.indexOf('}', open + 1);
  if (close <= open + 1)
    throw new TypeError(
      `On a Redis Cluster the key prefix needs a hash tag so a store's keys share one slot, e.g. '{${prefix.replace(/[{}]/g, '') || 'gw'}}:', got '${prefix}'.`,
    );
}
