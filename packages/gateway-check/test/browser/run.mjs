// Browser test: bundles page.mjs with esbuild and loads it in headless Chromium from the origin
// that also serves a real @svc/gateway-kit gateway (the kit serves no CORS, so the page and the
// gateway share an origin). Needs `pnpm build` first.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toNodeHandler } from '@svc/gateway-kit/node';
import { launchHeadlessChromium } from '@svc/headless-chromium';
import { build } from 'esbuild';
import { createRuntimeGateway, TOKEN } from '../runtime/scenarios.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const bundle = await build({
  entryPoints: [join(here, 'page.mjs')],
  bundle: true,
  format: 'esm',
  platform: 'browser',
  write: false,
});
const script = bundle.outputFiles[0].text;

const gateway = createRuntimeGateway();
const serveGateway = toNodeHandler(gateway);
const server = createServer((req, res) => {
  if (req.url?.startsWith('/v1/')) serveGateway(req, res);
  else if (req.url?.startsWith('/page.js')) {
    res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
  } else {
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(
        '<!doctype html><title>gateway-check</title><script type="module" src="/page.js"></script>',
      );
  }
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const pageUrl = `http://127.0.0.1:${server.address().port}/?token=${encodeURIComponent(TOKEN)}`;

const browser = await launchHeadlessChromium('gateway-check');
let failed = 0;
let passed = 0;
try {
  const tab = await browser.context.newPage();
  await tab.goto(pageUrl);
  await tab.waitForFunction(() => Array.isArray(window.__results), null, { timeout: 20_000 });
  const results = await tab.evaluate(() => window.__results);
  for (const { name, ok, detail } of results) {
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${detail ? `: ${detail}` : ''}`);
    if (ok) passed += 1;
    else failed += 1;
  }
  assert.ok(results.length >= 4, 'every check reported');
} finally {
  await browser.close();
  server.closeAllConnections();
  server.close();
  await gateway.close();
}
console.log(`browser: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
