import { defineConfig } from 'vitest/config';

// Headless Chromium against examples/node's approvals page (`pnpm run test:browser`).
export default defineConfig({
  test: {
    include: ['test/browser/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
