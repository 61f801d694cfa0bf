import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2023',
  // Web-standard code for workerd; `cloudflare:workers` is the runtime's own module.
  platform: 'neutral',
  external: ['cloudflare:workers', '@svc/gateway-kit'],
  treeshake: true,
});
