import { defineConfig } from 'vitest/config';

export default defineConfig({
  // Only this package's own tests: the snippets written under .tmp/ include test files that
  // the README test runs itself, one vitest per snippet.
  test: { include: ['test/**/*.test.ts'], testTimeout: 60_000, hookTimeout: 30_000 },
});
