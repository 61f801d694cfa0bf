import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    node: 'src/adapters/node/index.ts',
    fastify: 'src/adapters/fastify/index.ts',
    testing: 'src/testing/index.ts',
    contract: 'src/contract/index.ts',
    store: 'src/store/index.ts',
    callbacks: 'src/callbacks/index.ts',
    observe: 'src/observe/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2023',
  platform: 'neutral',
  treeshake: true,
  splitting: true,
});
