// Browser test of the debrief preview: publishes the example workspace folder to an emulator with
// `svc-workspace apply`, opens the emulator's preview pages in headless Chromium (Debian package
// at /usr/bin/chromium, or CHROMIUM_PATH), then opens the example debrief file with
// `svc-workspace preview FILE`. Screenshots are kept in .tmp/artifacts/. Needs `pnpm build` first.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchHeadlessChromium } from '@svc/headless-chromium';
import { serveWorkspaceEmulator } from '../../dist/emulator-node.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '../..');
const bin = join(root, 'dist/svc-workspace.js');
const folder = join(root, '../../examples/publish-debrief-node/workspace');
const sample = join(folder, 'debriefs/pipeline-review-acme.yaml');
const artifacts = join(root, '.tmp/artifacts');
mkdirSync(artifacts, { recursive: true });

const results = [];
const check = (name, ok, detail = '') => results.push({ name, ok: Boolean(ok), detail });

/** Runs the bin to completion. */
async function run(args, env) {
  const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, ...env } });
  let out = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  const [code] = await once(child, 'close');
  return { code, out };
}

/** Starts `svc-workspace preview FILE` and returns its URL and the child. */
async function startPreview(file) {
  const child = spawn(process.execPath, [bin, 'preview', file, '--port', '0']);
  let out = '';
  for await (const chunk of child.stdout) {
    out += chunk;
    if (out.includes('\n')) break;
  }
  const url = /at (http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
  assert.ok(url, `preview printed its URL: ${out}`);
  return { url, child };
}

/** Checks a rendered preview of the example debrief. */
async function checkSample(tab, label) {
  const text = await tab.locator('body').textContent();
  check(`${label}: title`, text.includes('ACME Corp pipeline review — 2025-W01'));
  check(
    `${label}: opening speech`,
    (await tab.locator('[data-speech="opening speech"]').textContent()).includes(
      'Here is the ACME Corp pipeline for 2025-W01',
    ),
  );
  const frames = tab.locator('iframe');
  check(`${label}: two canvas pages`, (await frames.count()) === 2);
  check(
    `${label}: pages are sandboxed`,
    (await frames.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('sandbox')))).every(
      (value) => value === '',
    ),
  );
  const first = tab.frameLocator('#page-0 iframe');
  check(
    `${label}: page 0 HTML rendered`,
    (await first.locator('h1').textContent()) === '3 deals advanced',
  );
  const second = tab.frameLocator('#page-1 iframe');
  check(
    `${label}: page 1 HTML rendered`,
    (await second.locator('p').textContent()).includes('Hooli'),
  );
  check(
    `${label}: page speech`,
    (await tab.locator('[data-speech="page 0 speech"]').textContent()).includes(
      '245 thousand euros',
    ) &&
      (await tab.locator('[data-speech="page 1 speech"]').textContent()).includes(
        'One deal is at risk',
      ),
  );
  const rows = await tab.locator('tr[data-section]').allTextContents();
  check(
    `${label}: sections with pageIndex and delivery`,
    rows.length === 2 &&
      /Wins\s*0 \(Moved to negotiation\)\s*wait_for_prompt/.test(rows[0]) &&
      /Risk\s*1 \(At risk\)\s*wait_for_prompt/.test(rows[1]),
    JSON.stringify(rows),
  );
}

/** Full-page screenshot once every canvas frame has painted (frames below the fold paint late). */
async function shoot(tab, name) {
  for (const frame of await tab.locator('iframe').all()) await frame.scrollIntoViewIfNeeded();
  await tab.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
  );
  await tab.screenshot({ path: join(artifacts, name), fullPage: true });
}

const api = await serveWorkspaceEmulator();
const browser = await launchHeadlessChromium('workspace-preview');
const children = [];
const scratch = mkdtempSync(join(tmpdir(), 'svc-preview-'));
try {
  const tab = await browser.context.newPage();
  const cspErrors = [];
  // Every console error except the one expected from the hostile page's blocked script.
  tab.on('console', (message) => {
    const text = message.text();
    if (message.type() === 'error' && !text.includes("'allow-scripts' permission is not set")) {
      cspErrors.push(text);
    }
  });
  await tab.setViewportSize({ width: 1100, height: 900 });

  // 1. Publish the folder to the emulator (no browser involved), then preview it there.
  const applied = await run(['apply', folder, '--yes'], {
    SVC_WORKSPACE_URL: api.url,
    SVC_WORKSPACE_KEY: 'wk_test_preview',
  });
  check('svc-workspace apply published the example folder', applied.code === 0, applied.out);
  await tab.goto(`${api.url}/_preview/`);
  const link = tab.locator('a', { hasText: 'ACME Corp pipeline review' });
  check('the list shows the stored debrief', (await link.count()) === 1);
  await link.click();
  await tab.waitForSelector('#page-1');
  await checkSample(tab, 'emulator preview');
  await shoot(tab, 'debrief-preview-emulator.png');

  // 2. Preview the file itself, without publishing it.
  const before = api.emulator.requests.length;
  const file = await startPreview(sample);
  children.push(file.child);
  await tab.goto(file.url);
  await checkSample(tab, 'file preview');
  await shoot(tab, 'debrief-preview-file.png');
  check('file preview sent nothing to the workspace', api.emulator.requests.length === before);

  // 3. A script in a page's HTML does not run.
  const hostile = join(scratch, 'hostile.json');
  writeFileSync(
    hostile,
    JSON.stringify({
      externalId: 'hostile',
      title: 'Hostile',
      pages: [
        {
          title: 'P',
          html: '<p id="x">static</p><script>document.getElementById("x").textContent = "ran"</script>',
        },
      ],
    }),
  );
  const bad = await startPreview(hostile);
  children.push(bad.child);
  await tab.goto(bad.url);
  const frameText = await tab.frameLocator('#page-0 iframe').locator('#x').textContent();
  check('scripts in page HTML do not run', frameText === 'static', frameText);
  check(
    'no console error (CSP violation, missing resource) on the preview pages',
    cspErrors.length === 0,
    cspErrors.join('\n'),
  );
} finally {
  for (const child of children) child.kill('SIGTERM');
  await browser.close();
  await api.close();
  rmSync(scratch, { recursive: true, force: true });
}

let failed = 0;
for (const { name, ok, detail } of results) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}${!ok && detail ? `: ${detail}` : ''}`);
  if (!ok) failed += 1;
}
console.log(`screenshots: ${join('.tmp', 'artifacts')}/debrief-preview-{emulator,file}.png`);
console.log(`browser (preview): ${results.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 && results.length >= 20 ? 0 : 1);
