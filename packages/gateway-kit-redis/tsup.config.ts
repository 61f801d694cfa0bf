import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2023',
  // Node only: the stores use node:os and node:crypto, and the redis client needs node:net.
  platform: 'node',
  treeshake: true,
});
