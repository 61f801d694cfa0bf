import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each file starts its own PostgreSQL (initdb + pg_ctl) and gateway processes; real timers.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One file at a time: the fault tests measure answer times on a shared 2-core machine.
    fileParallelism: false,
  },
});
