import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // Real timers: tool calls wait on jobs and approvals through the gateway.
    testTimeout: 20_000,
  },
});
