import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Each file starts its own PostgreSQL (initdb + pg_ctl) and gateway processes; real timers.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
