import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createWorkspaceClient } from '@svc/workspace-client';
import { type RunningEmulator, serveWorkspaceEmulator } from '@svc/workspace-client/emulator/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';

const script = fileURLToPath(new URL('../src/publish.ts', import.meta.url));
const KEY = 'wk_test_publish_node_example';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `node src/publish.ts` like `pnpm start` does, with only the given SVC_* variables. */
function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { SVC_WORKSPACE_URL: _url, SVC_WORKSPACE_KEY: _key, ...inherited } = process.env;
  const child = spawn(process.execPath, [script, ...args], {
    env: { ...inherited, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

let workspace: RunningEmulator;
beforeAll(async () => {
  workspace = await serveWorkspaceEmulator({ port: 0 });
});
beforeEach(() => workspace.emulator.reset());
afterAll(() => workspace.close());

describe('publish-debrief-node', () => {
  it('publishes to the workspace given by SVC_WORKSPACE_URL / SVC_WORKSPACE_KEY, and it is stored', async () => {
    const result = await run(['Initech', '2025-W07'], {
      SVC_WORKSPACE_URL: workspace.url,
      SVC_WORKSPACE_KEY: KEY,
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`Workspace: ${workspace.url}`);
    expect(result.stdout).toContain(
      'Stored: debrief pipeline-review:initech:2025-w07 ("Initech pipeline review — 2025-W07", 2 pages) reads back as published.',
    );

    // Read it back independently, through the client, with the same key.
    const client = createWorkspaceClient({ baseUrl: workspace.url, apiKey: KEY });
    const stored = await client.debriefs.get('pipeline-review:initech:2025-w07');
    expect(stored).toMatchObject({
      title: 'Initech pipeline review — 2025-W07',
      status: 'ready',
      contract: { version: 'svc-debrief-v1', svc: { delivery: 'manual' } },
    });
    expect(stored.contract?.canvas?.pages?.map((page) => page.title)).toEqual([
      'Moved to negotiation',
      'At risk',
    ]);
    expect(stored.contract?.sections?.map((s) => [s.title, s.pageIndex])).toEqual([
      ['Wins', 0],
      ['Risk', 1],
    ]);
  });

  it('re-running for the same week updates the same debrief instead of adding one', async () => {
    const env = { SVC_WORKSPACE_URL: workspace.url, SVC_WORKSPACE_KEY: KEY };
    expect((await run(['Initech', '2025-W07'], env)).code).toBe(0);
    expect((await run(['Initech', '2025-W07'], env)).code).toBe(0);
    expect((await run(['Initech', '2025-W08'], env)).code).toBe(0);
    const client = createWorkspaceClient({ baseUrl: workspace.url, apiKey: KEY });
    expect((await client.debriefs.list()).map((d) => d.externalId).sort()).toEqual([
      'pipeline-review:initech:2025-w07',
      'pipeline-review:initech:2025-w08',
    ]);
  });

  it('with no SVC_* variables, starts its own local emulator and says so', async () => {
    const result = await run([]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Workspace: local emulator at http:\/\/127\.0\.0\.1:\d+ /m);
    expect(result.stdout).toMatch(
      /^Stored: debrief pipeline-review:acme-corp:\d{4}-w\d{2} \(.*, 2 pages\) reads back as published\.$/m,
    );
    // It did not touch the workspace given to the other tests.
    expect(workspace.emulator.requests).toHaveLength(0);
  });

  it('refuses to guess when only one of SVC_WORKSPACE_URL and SVC_WORKSPACE_KEY is set', async () => {
    const result = await run([], { SVC_WORKSPACE_URL: workspace.url });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('Set both SVC_WORKSPACE_URL and SVC_WORKSPACE_KEY');
    expect(workspace.emulator.requests).toHaveLength(0);
  });

  it('reports a refusal by the workspace without printing the key, and exits 1', async () => {
    workspace.emulator.failNext({ status: 422, method: 'POST', path: '/debriefs' });
    const result = await run(['Initech', '2025-W07'], {
      SVC_WORKSPACE_URL: workspace.url,
      SVC_WORKSPACE_KEY: KEY,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^Publishing failed: UnprocessableEntityError: /m);
    expect(result.stdout + result.stderr).not.toContain(KEY);
    expect(workspace.emulator.workspace(KEY).debriefs).toHaveLength(0);
  });
});
