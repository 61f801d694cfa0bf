import { defineConfig, type ViteUserConfig } from 'vitest/config';

const config: ViteUserConfig = defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/runtime/**', 'node_modules/**'],
    globalSetup: ['test/global-setup.ts'],
    typecheck: { enabled: true, include: ['src/**/*.test-d.ts'] },
  },
});

export default config;
