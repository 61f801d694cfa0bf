import { defineConfig, type Options } from 'tsup';

const entry = {
  index: 'src/index.ts',
  emulator: 'src/emulator/index.ts',
  'emulator-node': 'src/emulator/node/index.ts',
  mock: 'src/mock/index.ts',
};

const config: Options | Options[] = defineConfig({
  // The bins are Node-only CLIs; its hashbang is kept by esbuild. It ships no types.
  entry: { ...entry, bin: 'src/emulator/node/bin.ts', 'svc-workspace': 'src/cli/bin.ts' },
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
