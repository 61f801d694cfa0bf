import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  target: 'es2023',
  // Node only: the stores use node:crypto, node:fs and the pg driver (node:net).
  platform: 'node',
  treeshake: true,
  external: ['pg'],
});
