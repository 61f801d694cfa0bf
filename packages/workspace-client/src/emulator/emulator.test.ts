import { describe, expect, it } from 'vitest';
import { createWorkspaceClient } from '../client/create-workspace-client.js';
import { createWorkspaceEmulator } from './emulator.js';

const KEY = 'wk_test_example';
const auth = { authorization: `Bearer ${KEY}` };
const json = { ...auth, 'content-type': 'application/json' };
const skill = { name: 'Pricing', slug: 'pricing', instructions: 'Quote list prices.' };

const call = (
  emulator: ReturnType<typeof createWorkspaceEmulator>,
  path: string,
  init: RequestInit = {},
) => emulator.handle(new Request(`http://emulator.local${path}`, { headers: auth, ...init }));

describe('emulator routing', () => {
  it.each([
    '/api/v1/organization/skills',
    '/api/v1/orgs/debriefs',
    '/x/api/v1/org/debriefs',
    '/api/v1/orgskills',
    '/skills',
  ])('answers 404 route_not_found for %s (the root must start the path)', async (path) => {
    const emulator = createWorkspaceEmulator();
    const response = await call(emulator, path);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'route_not_found',
    );
  });

  it('serves the root itself and paths below it', async () => {
    const emulator = createWorkspaceEmulator();
    expect((await call(emulator, '/api/v1/org')).status).toBe(404);
    expect((await call(emulator, '/api/v1/org/skills')).status).toBe(200);
  });

  it('serves the API under a configured basePath, and only there', async () => {
    const emulator = createWorkspaceEmulator({ basePath: '/tenant-a/' });
    expect((await call(emulator, '/tenant-a/api/v1/org/skills')).status).toBe(200);
    expect((await call(emulator, '/api/v1/org/skills')).status).toBe(404);
    expect((await call(emulator, '/tenant-b/api/v1/org/skills')).status).toBe(404);
    const client = createWorkspaceClient({
      baseUrl: 'http://emulator.local/tenant-a',
      apiKey: KEY,
      retry: 0,
      fetch: (input, init) => emulator.handle(new Request(input, init)),
    });
    await client.skills.upsert(skill);
    expect(await client.skills.list()).toHaveLength(1);
  });

  it.each(['/debriefs/%E0%A4%A', '/skills/%', '/agents/%ZZ'])(
    'answers 404 not_found (not 500) for malformed percent-encoding in %s',
    async (path) => {
      const emulator = createWorkspaceEmulator();
      const method = path.startsWith('/debriefs') ? 'GET' : 'DELETE';
      const response = await call(emulator, `/api/v1/org${path}`, { method });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
    },
  );
});

describe('emulator request media type', () => {
  it.each([
    ['text/plain', 'text/plain;charset=UTF-8'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['no content-type', undefined],
    ['a JSON-like type', 'application/json-patch+json'],
  ])('answers 415 for a POST with %s', async (_label, type) => {
    const emulator = createWorkspaceEmulator();
    const headers: Record<string, string> = { ...auth };
    if (type !== undefined) headers['content-type'] = type;
    const response = await call(emulator, '/api/v1/org/skills', {
      method: 'POST',
      headers,
      body: JSON.stringify(skill),
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe(
      'unsupported_media_type',
    );
    expect(emulator.workspace(KEY).skills).toEqual([]);
  });

  it.each(['application/json', 'Application/JSON; charset=utf-8'])(
    'accepts a POST with %s',
    async (type) => {
      const emulator = createWorkspaceEmulator();
      const response = await call(emulator, '/api/v1/org/skills', {
        method: 'POST',
        headers: { ...json, 'content-type': type },
        body: JSON.stringify(skill),
      });
      expect(response.status).toBe(201);
    },
  );

  it('stores a service-style slug such as "sales.playbook" and deletes it by that key', async () => {
    const emulator = createWorkspaceEmulator();
    const client = createWorkspaceClient({
      baseUrl: 'http://emulator.local',
      apiKey: KEY,
      retry: 0,
      fetch: (input, init) => emulator.handle(new Request(input, init)),
    });
    await client.skills.upsert({ ...skill, slug: 'sales.playbook' });
    expect(emulator.workspace(KEY).skills.map((s) => s.slug)).toEqual(['sales.playbook']);
    await client.skills.delete('sales.playbook');
    expect(emulator.workspace(KEY).skills).toEqual([]);
  });
});
