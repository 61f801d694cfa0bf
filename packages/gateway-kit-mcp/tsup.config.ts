import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', stdio: 'src/stdio.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  target: 'es2023',
  // The HTTP handler is Web-standard; the stdio entry reads process streams (Node, Deno, Bun).
  platform: 'neutral',
  treeshake: true,
  splitting: true,
});
