// Headless Chromium (Debian package at /usr/bin/chromium, or CHROMIUM_PATH) opens the built page
// (run `pnpm build` first; `pnpm test:browser` does) served on one localhost port; the page
// publishes to a workspace emulator on another port (CORS), and we check the emulator stored it.
import { readFileSync } from 'node:fs';
import type { Page } from '@svc/headless-chromium';
import { type HeadlessChromium, launchHeadlessChromium } from '@svc/headless-chromium';
import { createWorkspaceClient } from '@svc/workspace-client';
import { type RunningEmulator, serveWorkspaceEmulator } from '@svc/workspace-client/emulator/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEV_TOKEN, type DevServer, startDevServer } from '../../scripts/dev-server.ts';

let server: DevServer;
let other: RunningEmulator;
let browser: HeadlessChromium;
let tab: Page;
let consoleErrors: string[];

beforeAll(async () => {
  server = await startDevServer({ port: 0 });
  other = await serveWorkspaceEmulator({ port: 0 });
  browser = await launchHeadlessChromium('publish-debrief-browser');
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await other?.close();
});

beforeEach(async () => {
  server.workspace.emulator.reset();
  other.emulator.reset();
  tab = await browser.context.newPage();
  consoleErrors = [];
  tab.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text());
  });
  tab.on('pageerror', (error) => consoleErrors.push(String(error)));
});
afterEach(async () => {
  await tab.close();
});

/** Opens the page and waits until it has loaded its configuration (the button is enabled then). */
async function open(url: string): Promise<void> {
  await tab.goto(url);
  await tab.locator('button:enabled').waitFor();
}

/** Fills the form like a user, clicks Publish and returns the status line once it settles. */
async function publish(account: string, week: string): Promise<string> {
  await tab.locator('button:enabled').waitFor();
  await tab.fill('input[name=account]', account);
  await tab.fill('input[name=week]', week);
  await tab.click('button');
  await tab.waitForSelector('#status[data-state=done], #status[data-state=error]');
  return (await tab.textContent('#status')) ?? '';
}

describe('publish-debrief-browser page in headless Chromium', () => {
  it('publishes a debrief to the workspace on another origin, and it is stored', async () => {
    await open(server.url);
    expect(await tab.textContent('#workspace')).toBe(`Workspace: ${server.workspace.url}`);

    const status = await publish('Globex', '2025-W09');
    expect(status).toBe(
      'Stored: debrief pipeline-review:globex:2025-w09 ("Globex pipeline review — 2025-W09", 2 pages).',
    );
    expect(await tab.isVisible('#result')).toBe(true);

    // Verify with the client, outside the browser, in the workspace of the page's token.
    const client = createWorkspaceClient({ baseUrl: server.workspace.url, apiKey: DEV_TOKEN });
    const stored = await client.debriefs.get('pipeline-review:globex:2025-w09');
    expect(stored.title).toBe('Globex pipeline review — 2025-W09');
    expect(stored.source).toBe('publish-debrief-browser-example');
    expect(stored.contract?.canvas?.pages?.map((p) => p.title)).toEqual([
      'Moved to negotiation',
      'At risk',
    ]);
    // It really went cross-origin: the browser sent CORS preflights for Authorization.
    const methods = server.workspace.emulator.requests.map((r) => r.method);
    expect(methods).toContain('OPTIONS');
    expect(methods).toContain('POST');
    expect(consoleErrors).toEqual([]);
  });

  it('publishing the same week again updates the debrief instead of adding one', async () => {
    await tab.goto(server.url);
    expect(await publish('Globex', '2025-W09')).toMatch(/^Stored: /);
    expect(await publish('Globex', '2025-W09')).toMatch(/^Stored: /);
    expect(server.workspace.emulator.workspace(DEV_TOKEN).debriefs).toHaveLength(1);
  });

  it('publishes to the workspace named by ?api= instead of the configured one', async () => {
    await open(`${server.url}?api=${encodeURIComponent(other.url)}`);
    expect(await tab.textContent('#workspace')).toBe(`Workspace: ${other.url}`);
    expect(await publish('Initech', '2025-W10')).toMatch(
      /^Stored: debrief pipeline-review:initech/,
    );
    expect(other.emulator.workspace(DEV_TOKEN).debriefs.map((d) => d.externalId)).toEqual([
      'pipeline-review:initech:2025-w10',
    ]);
    expect(server.workspace.emulator.workspace(DEV_TOKEN).debriefs).toHaveLength(0);
  });

  it('shows a refusal by the workspace to the user, and nothing is stored', async () => {
    server.workspace.emulator.failNext({ status: 422, method: 'POST' });
    await tab.goto(server.url);
    const status = await publish('Globex', '2025-W09');
    expect(status).toMatch(/^Publishing failed: UnprocessableEntityError: /);
    expect(status).not.toContain(DEV_TOKEN);
    expect(server.workspace.emulator.workspace(DEV_TOKEN).debriefs).toHaveLength(0);
  });

  it('the bundle embeds no workspace key: the page gets its token from its backend', () => {
    const bundle = readFileSync(new URL('../../dist/app.js', import.meta.url), 'utf8');
    expect(bundle).toContain('config.json'); // it asks its backend where the workspace is
    expect(bundle).not.toContain(DEV_TOKEN);
    expect(bundle).not.toMatch(/\bwk_[A-Za-z0-9_]{6,}/);
  });
});
