import { configDefaults, defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // The Redis Cluster suite runs once, in its own step (`pnpm test:cluster`, vitest.cluster.config.ts).
    exclude: [...configDefaults.exclude, 'test/cluster.test.ts'],
    // Each file starts its own redis-server (and gateway processes); real timers throughout.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
