import { defineConfig, type Options } from 'tsup';

const entry = { index: 'src/index.ts', client: 'src/client.ts' };

const config: Options | Options[] = defineConfig({
  // The bin is a Node-only CLI; its hashbang is kept by esbuild. It ships no types.
  entry: { ...entry, bin: 'src/cli/bin.ts' },
  format: ['esm', 'cjs'],
  dts: { entry },
  clean: true,
  target: 'es2023',
  platform: 'neutral',
  treeshake: true,
  splitting: true,
  external: [/^node:/],
}) as Options;

export default config;
