// Bundles the page for the browser into dist/: app.js (+ source map) and index.html.
import { copyFile, mkdir, rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = new URL('../', import.meta.url);
const dist = fileURLToPath(new URL('dist/', root));

await rm(dist, { recursive: true, force: true });
await mkdir(dist, { recursive: true });
const result = await build({
  entryPoints: { app: fileURLToPath(new URL('src/main.ts', root)) },
  outdir: dist,
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  minify: true,
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});
await copyFile(fileURLToPath(new URL('src/index.html', root)), `${dist}index.html`);
const bytes = result.metafile.outputs['dist/app.js']?.bytes;
console.log(`built dist/index.html and dist/app.js${bytes ? ` (${bytes} bytes)` : ''}`);
