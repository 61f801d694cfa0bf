import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // test/runtime runs on Bun (`test:bun`).
    exclude: ['test/runtime/**'],
    // Real timers: tool calls wait on jobs and approvals through the gateway.
    testTimeout: 20_000,
  },
});
