import { setupServer } from 'msw/node';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWorkspaceClient } from '../client/create-workspace-client.ts';
import { defineDebrief } from '../debrief/define-debrief.ts';
import { AuthenticationError } from '../errors/authentication-error.ts';
import { WorkspaceConfigError } from '../errors/config-error.ts';
import { NotFoundError } from '../errors/not-found-error.ts';
import { UnprocessableEntityError } from '../errors/unprocessable-entity-error.ts';
import { createWorkspaceEmulator, workspaceHandlers } from './index.ts';

const BASE = 'https://svc.test';
const emulator = createWorkspaceEmulator({ now: () => new Date('2025-01-06T09:00:00Z') });
const server = setupServer(...workspaceHandlers({ emulator, baseUrl: BASE }));
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterAll(() => server.close());
beforeEach(() => emulator.reset());

const client = (apiKey = 'wk_test_example') =>
  createWorkspaceClient({ baseUrl: BASE, apiKey, retry: 0 });
const weekly = defineDebrief({
  externalId: 'weekly:2025-w01',
  title: 'Week 1',
  pages: [{ title: 'Overview', html: '<h1>Week 1</h1>' }],
});

describe('workspace emulator through msw', () => {
  it('derives the slug from the name and upserts by slug', async () => {
    const first = await client().skills.upsert({ name: 'Sales Playbook', instructions: 'v1' });
    expect(first).toMatchObject({ slug: 'sales-playbook', instructions: 'v1' });
    await client().skills.upsert({ name: 'Sales Playbook', instructions: 'v2' });
    const skills = await client().skills.list();
    expect(skills).toHaveLength(1);
    expect(skills[0]).toMatchObject({ slug: 'sales-playbook', instructions: 'v2', id: first.id });
  });

  it('isolates workspaces by key', async () => {
    await client('wk_test_a').agents.upsert({ name: 'A', slug: 'a' });
    expect(await client('wk_test_a').agents.list()).toHaveLength(1);
    expect(await client('wk_test_b').agents.list()).toEqual([]);
    expect(emulator.workspace('wk_test_a').agents).toHaveLength(1);
  });

  it('deletes, then answers 404 for a missing key', async () => {
    await client().skills.upsert({ name: 'X', slug: 'x', instructions: 'i' });
    await client().skills.delete('x');
    await expect(client().skills.delete('x')).rejects.toBeInstanceOf(NotFoundError);
    expect(emulator.requests.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual([
      'POST /skills 201',
      'DELETE /skills/x 204',
      'DELETE /skills/x 404',
    ]);
  });

  it('stores debriefs and answers the saved debrief with createdAt/updatedAt', async () => {
    const saved = await client().debriefs.upsert(weekly);
    expect(saved).toMatchObject({ ...weekly, createdAt: '2025-01-06T09:00:00.000Z' });
    expect(await client().debriefs.get('weekly:2025-w01')).toEqual(saved);
    expect(await client().debriefs.list()).toEqual([saved]);
    await expect(client().debriefs.get('nope')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('validates bodies (422 with issues) even when a client skips its own checks', async () => {
    const response = await fetch(`${BASE}/api/v1/org/debriefs`, {
      method: 'POST',
      headers: { authorization: 'Bearer wk_test_example', 'content-type': 'application/json' },
      body: JSON.stringify({ externalId: 'x', organizationId: 'org', contract: {} }),
    });
    expect(response.status).toBe(422);
    const body = (await response.json()) as {
      error: { code: string; details: { issues: { path: string }[] } };
    };
    expect(body.error.code).toBe('validation_failed');
    expect(body.error.details.issues.map((i) => i.path)).toContain('organizationId');
  });

  it('answers 401 with an error envelope without a bearer key', async () => {
    const response = await fetch(`${BASE}/api/v1/org/skills`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: {
        code: 'unauthorized',
        message: 'Missing or malformed "Authorization: Bearer <workspace key>" header',
      },
    });
  });

  it('maps its errors to the client error classes', async () => {
    emulator.failNext({ status: 401 });
    await expect(client().skills.list()).rejects.toBeInstanceOf(AuthenticationError);
    emulator.failNext({ status: 422, path: '/agents', method: 'POST' });
    await expect(client().agents.upsert({ name: 'A', slug: 'a' })).rejects.toBeInstanceOf(
      UnprocessableEntityError,
    );
  });

  it('injects faults that the client retries through', async () => {
    emulator.failNext({ status: 503, times: 1, headers: { 'retry-after-ms': '5' } });
    const retrying = createWorkspaceClient({ baseUrl: BASE, apiKey: 'wk_test_example' });
    await expect(retrying.skills.list()).resolves.toEqual([]);
    expect(emulator.requests.map((r) => r.status)).toEqual([503, 200]);
  });

  it('answers 405 with Allow for a method a route does not have', async () => {
    const response = await fetch(`${BASE}/api/v1/org/debriefs/x`, {
      method: 'DELETE',
      headers: { authorization: 'Bearer wk_test_example' },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
  });

  it('serves a baseUrl with a path when it creates the emulator', async () => {
    const tenant = 'https://tenant.test/tenant-a';
    const scoped = setupServer(...workspaceHandlers({ baseUrl: tenant }));
    server.close();
    scoped.listen({ onUnhandledFrame: 'error' });
    try {
      const tenantClient = createWorkspaceClient({
        baseUrl: tenant,
        apiKey: 'wk_test_example',
        retry: 0,
      });
      await tenantClient.skills.upsert({ name: 'Pricing', instructions: 'Quote.' });
      expect(await tenantClient.skills.list()).toHaveLength(1);
    } finally {
      scoped.close();
      server.listen({ onUnhandledFrame: 'error' });
    }
  });

  it('answers pages of any origin when it creates the emulator (msw runs inside the page)', async () => {
    const own = setupServer(...workspaceHandlers({ baseUrl: 'https://own.test' }));
    server.close();
    own.listen({ onUnhandledFrame: 'error' });
    try {
      const response = await fetch('https://own.test/api/v1/org/skills', {
        headers: { authorization: 'Bearer wk_test_example', origin: 'https://storybook.example' },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://storybook.example');
    } finally {
      own.close();
      server.listen({ onUnhandledFrame: 'error' });
    }
  });
});

describe('workspaceHandlers options', () => {
  it('refuses an unknown option, which used to intercept every origin', () => {
    expect(() => workspaceHandlers({ baseURL: BASE } as never)).toThrow(
      new WorkspaceConfigError(
        'workspaceHandlers: unknown option "baseURL" (known: baseUrl, emulator).',
      ),
    );
    expect(() => workspaceHandlers('https://svc.test' as never)).toThrow(
      /^workspaceHandlers: options is a string: /,
    );
  });
});
