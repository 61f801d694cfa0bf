import { DEFAULT_BUCKETS, KeyLayout } from '../src/key-layout.ts';
import { eventually } from './gateway-processes.ts';

/** What is used of a node-redis client (`createClient()`) or cluster client (`createCluster()`). */
interface NodeClient {
  pubSubNumSub(channel: string): Promise<Record<string, number>>;
}
interface ClusterClient {
  getNodeClientForKey(key: string): Promise<{ sendCommand(args: string[]): Promise<unknown> }>;
}

/**
 * The channels a `RedisJobStore` with `prefix` subscribes to for cancels: on one node its one
 * channel (`P cancel`); on a cluster one sharded channel per bucket (`P{t}:cancel`).
 */
export function cancelChannels(
  prefix: string,
  cluster: boolean,
  buckets: number = DEFAULT_BUCKETS,
): string[] {
  if (!cluster) return [`${prefix}cancel`];
  const keys = new KeyLayout(prefix, buckets);
  return Array.from({ length: buckets }, (_, bucket) => `${keys.base(bucket)}cancel`);
}

/**
 * Resolves once each of `channels` has exactly `count` subscribers, as Redis counts them: `PUBSUB
 * NUMSUB` on one node, `PUBSUB SHARDNUMSUB` on the primary serving each channel's slot on a
 * cluster (where its shard's subscribers are). Rejects after `timeoutMs`. For a test to know a
 * store's subscription is up before it publishes, instead of sleeping.
 *
 * @example
 * store.onCancel('j1', listener);
 * await waitForSubscribers(raw, cancelChannels(prefix, false), 'the store to subscribe');
 */
export async function waitForSubscribers(
  client: NodeClient | ClusterClient,
  channels: readonly string[],
  what: string,
  { count = 1, timeoutMs = 5_000 }: { count?: number; timeoutMs?: number } = {},
): Promise<void> {
  await eventually(
    async () => {
      const counts = await Promise.all(channels.map((channel) => subscribers(client, channel)));
      return counts.every((n) => n === count) ? true : undefined;
    },
    timeoutMs,
    what,
  );
}

async function subscribers(client: NodeClient | ClusterClient, channel: string): Promise<number> {
  if ('getNodeClientForKey' in client) {
    const node = await client.getNodeClientForKey(channel);
    const reply = (await node.sendCommand(['PUBSUB', 'SHARDNUMSUB', channel])) as [string, number];
    return Number(reply[1]);
  }
  return (await client.pubSubNumSub(channel))[channel] ?? 0;
}
