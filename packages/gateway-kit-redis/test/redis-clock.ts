import { vi } from 'vitest';

/** What is used of a node-redis client (`createClient()`) or cluster client (`createCluster()`). */
interface NodeClient {
  sendCommand(args: string[]): Promise<unknown>;
}
interface ClusterClient {
  getNodeClientForKey(key: string): Promise<NodeClient>;
}

/**
 * Redis' clock, as a test sees it. The stores' expiries go by it (PX, and TIME in their scripts),
 * and no fake timer moves it: a test that needs time to pass for Redis waits until Redis' clock
 * says it did, instead of sleeping on Node's clock and hoping Redis' moved as far.
 */
export interface RedisClock {
  /** Redis' time in ms, to the µs (TIME). */
  now(): Promise<number>;
  /**
   * Resolves once `ms` have passed on Redis' clock since the call (so after anything the test
   * wrote before it); rejects if they have not after `ms` + 5 s of polling.
   */
  elapse(ms: number): Promise<void>;
}

/**
 * Redis' clock through `client`. On a cluster it asks one node: the test cluster's nodes run on
 * this machine, on one clock.
 *
 * @example
 * const clock = redisClock(raw);
 * await store.create('k', 'v', 200);
 * await clock.elapse(201); // the record's PX has run out on Redis' clock
 */
export function redisClock(client: NodeClient | ClusterClient): RedisClock {
  const now = async (): Promise<number> => {
    const node =
      'getNodeClientForKey' in client ? await client.getNodeClientForKey('clock') : client;
    const [seconds, micros] = (await node.sendCommand(['TIME'])) as [string, string];
    return Number(seconds) * 1_000 + Number(micros) / 1_000;
  };
  return {
    now,
    elapse: async (ms) => {
      const target = (await now()) + ms;
      await vi.waitFor(
        async () => {
          const at = await now();
          if (at < target) throw new Error(`Redis' clock is at ${at}, short of ${target}`);
        },
        { timeout: ms + 5_000, interval: 2 },
      );
    },
  };
}
