import { defineConfig } from 'tsup';

// Node only: the stores use node:crypto, node:fs and the pg driver (node:net).
export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    // Members tagged @internal (the outbox's hooks for its own job store) stay out of the
    // published declarations.
    dts: { compilerOptions: { stripInternal: true } },
    clean: true,
    target: 'es2023',
    platform: 'node',
    treeshake: true,
    // import.meta.url (where the shipped migrations/ folder is) in the CommonJS build too.
    shims: true,
    external: ['pg'],
  },
  {
    // The svc-gateway-postgres CLI: ESM only (top-level await).
    entry: { cli: 'src/cli.ts' },
    format: ['esm'],
    target: 'es2023',
    platform: 'node',
    external: ['pg'],
  },
]);
