import { defineConfig } from 'vitest/config';

// The store suites, two gateway processes and a primary's failover on a local Redis Cluster
// (3 primaries, 3 replicas): `pnpm test:cluster`.
export default defineConfig({
  test: {
    include: ['test/cluster.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
