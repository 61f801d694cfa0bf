import { describe, expect, it } from 'vitest';
import { defineDebrief } from '../debrief/define-debrief.ts';
import { createWorkspaceEmulator, type WorkspaceEmulatorOptions } from './emulator.ts';
import { escapeHtml, renderDebrief } from './preview.ts';

const debrief = defineDebrief({
  externalId: 'weekly/2025 w01',
  title: 'Week <1> & "friends"',
  openingSpeech: 'Hello room.',
  pages: [
    {
      title: 'Overview',
      html: '<h1>Pipeline</h1><script>alert(1)</script>',
      speech: 'Here it is.',
    },
    { title: 'Risk', html: '<p>Hooli</p>' },
  ],
  sections: [
    { title: 'Intro', pageIndex: 1, speech: 'Risk first.' },
    { title: 'Main', pageIndex: 0, delivery: 'immediate' },
  ],
});

async function setup(options: WorkspaceEmulatorOptions = {}) {
  const emulator = createWorkspaceEmulator(options);
  const base = `http://emulator.local${options.basePath ?? ''}`;
  const post = (key: string, body: unknown) =>
    emulator.handle(
      new Request(`${base}/api/v1/org/debriefs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  expect((await post('wk_secret_one', debrief)).status).toBe(201);
  expect((await post('wk_secret_two', { ...debrief, externalId: 'other' })).status).toBe(201);
  const get = (path: string, headers: Record<string, string> = {}) =>
    emulator.handle(new Request(`http://emulator.local${path}`, { headers }));
  return { emulator, get };
}

describe('renderDebrief', () => {
  it('escapes every text and keeps page HTML inside a sandboxed srcdoc frame', () => {
    const html = renderDebrief(debrief);
    expect(html).toContain('Week &lt;1&gt; &amp; &quot;friends&quot;');
    expect(html).not.toContain('<script>');
    expect(html).toContain(
      `<iframe title="Overview" sandbox="" referrerpolicy="no-referrer" loading="eager" srcdoc="${escapeHtml('<h1>Pipeline</h1><script>alert(1)</script>')}"`,
    );
    expect(html).toContain('<div class="speech" data-speech="opening speech">Hello room.</div>');
    expect(html).toContain('<div class="speech" data-speech="page 0 speech">Here it is.</div>');
    expect(html).toContain('page 1 speech: (none)');
    expect(html).toMatch(
      /<tr data-section="0"><td>0<\/td><td>Intro<\/td><td><a href="#page-1">1<\/a> \(Risk\)<\/td><td><code>wait_for_prompt<\/code>/,
    );
    expect(html).toMatch(/<tr data-section="1">.*<code>immediate<\/code>/);
  });

  it('renders a stored debrief with missing parts, flagging a section without its page', () => {
    const html = renderDebrief({
      externalId: 'x',
      contract: { sections: [{ title: 'S', pageIndex: 3 }] },
    });
    expect(html).toContain('Canvas pages (0)');
    expect(html).toContain('3 — no such page');
  });
});

describe('emulator preview pages', () => {
  it('lists stored debriefs of every workspace without showing keys', async () => {
    const { get } = await setup();
    const response = await get('/_preview/');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('content-security-policy')).not.toContain('script-src');
    const html = await response.text();
    expect(html).toContain('href="/_preview/1/weekly%2F2025%20w01"');
    expect(html).toContain('href="/_preview/2/other"');
    expect(html).not.toContain('wk_secret');
  });

  it('serves one page per debrief, and 404 for an unknown one', async () => {
    const { get } = await setup({ basePath: '/tenant' });
    const page = await get('/tenant/_preview/1/weekly%2F2025%20w01');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-speech="opening speech">Hello room.');
    for (const path of [
      '/tenant/_preview/2/weekly%2F2025%20w01',
      '/tenant/_preview/9/x',
      '/tenant/_preview/1/%E0%A4%A',
      '/tenant/_preview/1/a/b',
    ]) {
      expect((await get(path)).status, path).toBe(404);
    }
    expect((await get('/_preview/')).status).toBe(404);
  });

  it('can be switched off, and refuses foreign origins', async () => {
    const { get } = await setup({ preview: false });
    expect((await get('/_preview/')).status).toBe(404);
    const open = await setup();
    expect((await open.get('/_preview/', { origin: 'https://evil.example' })).status).toBe(403);
    // DNS rebinding: a foreign name resolving to this machine.
    const rebound = await open.get('/_preview/', { host: 'evil.example:4010' });
    expect(rebound.status).toBe(403);
    expect(await rebound.text()).toContain('host_not_allowed');
    for (const host of ['localhost:4010', '127.0.0.1:4010', '[::1]:4010', 'emulator.local']) {
      expect((await open.get('/_preview/', { host })).status, host).toBe(200);
    }
  });
});
