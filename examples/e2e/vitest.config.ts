import { defineConfig } from 'vitest/config';

// One file per runtime; each starts its example server as a child process.
export default defineConfig({
  test: {
    include: ['test/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 40_000,
  },
});
