import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // workerd on the real clock when the suite runs under faketime (see the file).
    setupFiles: ['test/real-clock-for-workerd.ts'],
    // Each file starts workerd (Miniflare) or wrangler; real timers throughout.
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
