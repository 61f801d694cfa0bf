// Browser test: bundles page.mjs with esbuild, serves it from one localhost origin, runs the
// workspace emulator on another, and loads the page in headless Chromium (Debian package at
// /usr/bin/chromium, or CHROMIUM_PATH). Needs `pnpm build` first.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchHeadlessChromium } from '@svc/headless-chromium';
import { build } from 'esbuild';
import { serveWorkspaceEmulator } from '../../dist/emulator-node.js';

const here = dirname(fileURLToPath(import.meta.url));
const bundle = await build({
  entryPoints: [join(here, 'page.mjs')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  write: false,
});
const script = bundle.outputFiles[0].text;

const api = await serveWorkspaceEmulator();
const page = createServer((req, res) => {
  if (req.url?.startsWith('/page.js')) {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
  } else {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<!doctype html><title>workspace-client</title><script type="module" src="/page.js"></script>',
      );
  }
});
await new Promise((resolve) => page.listen(0, '127.0.0.1', resolve));
const pageUrl = `http://localhost:${page.address().port}/?api=${encodeURIComponent(api.url)}`;

const browser = await launchHeadlessChromium('workspace-client');
let failed = 0;
let passed = 0;
try {
  const tab = await browser.context.newPage();
  const consoleErrors = [];
  tab.on('console', (message) => message.type() === 'error' && consoleErrors.push(message.text()));
  await tab.goto(pageUrl);
  await tab.waitForFunction(() => Array.isArray(window.__results), null, { timeout: 20_000 });
  const results = await tab.evaluate(() => window.__results);
  // The write really reached the emulator, in the workspace of the token.
  const stored = api.emulator.workspace('wk_test_browser_token').debriefs;
  results.push({ name: 'the emulator stored it', ok: stored.length === 1, detail: '' });
  const preflights = api.emulator.requests.filter((r) => r.method === 'OPTIONS');
  results.push({ name: 'the browser sent CORS preflights', ok: preflights.length > 0, detail: '' });
  for (const { name, ok, detail } of results) {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
    if (ok) passed += 1;
    else failed += 1;
  }
  if (consoleErrors.length > 0) console.log(`console errors:\n${consoleErrors.join('\n')}`);
  assert.ok(results.length >= 5, 'every check reported');
} finally {
  await browser.close();
  await api.close();
  page.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
