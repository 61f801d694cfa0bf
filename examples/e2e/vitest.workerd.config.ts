import { defineConfig } from 'vitest/config';

// examples/cloudflare in workerd (wrangler dev): its own CI step, run once (not per Node version).
export default defineConfig({
  test: {
    include: ['test/workerd/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
  },
});
