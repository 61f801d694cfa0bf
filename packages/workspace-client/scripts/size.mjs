#!/usr/bin/env node
// Bundle-size budgets of @svc/workspace-client: each entry is bundled for the browser with every
// dependency (esbuild, minified, ES2023), gzipped (level 9), and compared with its budget.
// Prints a breakdown by package (ky, valibot, this package) from esbuild's metafile.
// Run after `pnpm build`. `--json` prints the figures as JSON. Exit 1 when a budget is exceeded.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist/index.js');

/** Budgets in bytes of min+gzip (1 kB = 1000 bytes). */
const entries = [
  {
    name: 'full client (every export)',
    code: `export * from ${JSON.stringify(dist)};`,
    budget: 17_950,
  },
  {
    name: 'debrief publisher: { createDebriefsClient, defineDebrief }',
    code: `export { createDebriefsClient, defineDebrief } from ${JSON.stringify(dist)};`,
    budget: 16_450,
  },
];

const packageOf = (input) => {
  const match = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(input);
  return match ? match[1] : '@svc/workspace-client';
};

async function measure(code, external = []) {
  const result = await build({
    stdin: { contents: code, resolveDir: root, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2023',
    write: false,
    metafile: true,
    logLevel: 'silent',
    external,
  });
  const output = result.outputFiles[0].contents;
  const [meta] = Object.values(result.metafile.outputs);
  const byPackage = {};
  for (const [input, { bytesInOutput }] of Object.entries(meta.inputs)) {
    const name = packageOf(input);
    byPackage[name] = (byPackage[name] ?? 0) + bytesInOutput;
  }
  return { minified: output.length, gzip: gzipSync(output, { level: 9 }).length, byPackage };
}

const kB = (bytes) => `${(bytes / 1000).toFixed(2)} kB`;
const results = [];
for (const entry of entries) {
  results.push({ ...entry, ...(await measure(entry.code)) });
}
// The floor set by ky alone: what this client imports from it, bundled the same way.
const ky = await measure(
  `export { default, isHTTPError, isKyError, isNetworkError, isTimeoutError } from 'ky';`,
);

// What the full client adds on top of its dependencies (they are left out of the bundle).
const full = entries[0].code;
const withoutKy = await measure(full, ['ky']);
const ownOnly = await measure(full, ['ky', 'valibot']);

if (process.argv.includes('--json')) {
  console.log(
    JSON.stringify(
      { entries: results.map(({ code, ...rest }) => rest), kyAlone: ky, withoutKy, ownOnly },
      null,
      2,
    ),
  );
} else {
  for (const result of results) {
    const ok = result.gzip <= result.budget;
    console.log(
      `${ok ? 'ok  ' : 'OVER'} ${result.name}: ${kB(result.gzip)} min+gzip (budget ${kB(result.budget)}), ${kB(result.minified)} minified`,
    );
    const parts = Object.entries(result.byPackage).sort((a, b) => b[1] - a[1]);
    for (const [name, bytes] of parts) {
      console.log(
        `       ${name}: ${kB(bytes)} minified (${((bytes / result.minified) * 100).toFixed(0)} %)`,
      );
    }
  }
  console.log(
    `     ky alone (the imports this client uses): ${kB(ky.gzip)} min+gzip, ${kB(ky.minified)} minified`,
  );
  console.log(
    `     full client without ky: ${kB(withoutKy.gzip)} min+gzip; without ky and valibot: ${kB(ownOnly.gzip)}`,
  );
}
process.exit(results.every((result) => result.gzip <= result.budget) ? 0 : 1);
