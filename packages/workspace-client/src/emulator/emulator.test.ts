import { describe, expect, it } from 'vitest';
import { createWorkspaceClient } from '../client/create-workspace-client.ts';
import { WorkspaceConfigError } from '../errors/config-error.ts';
import { createWorkspaceEmulator } from './emulator.ts';

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

describe('emulator hardening', () => {
  const post = (
    emulator: ReturnType<typeof createWorkspaceEmulator>,
    body: BodyInit,
    init: RequestInit = {},
  ) => call(emulator, '/api/v1/org/skills', { method: 'POST', headers: json, body, ...init });
  const codeOf = async (response: Response) =>
    ((await response.json()) as { error: { code: string } }).error.code;

  it.each([
    'http://localhost:5173',
    'http://127.0.0.1:3000',
    'https://[::1]:8443',
    'http://localhost',
  ])('answers CORS for the local origin %s', async (origin) => {
    const response = await call(createWorkspaceEmulator(), '/api/v1/org/skills', {
      headers: { ...auth, origin },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  });

  it.each([
    'https://evil.example',
    'http://localhost.evil.example',
    'null',
    'http://127.0.0.1.nip.io',
  ])('refuses the origin %s with 403 and no CORS headers, preflight included', async (origin) => {
    const emulator = createWorkspaceEmulator();
    await emulator.handle(
      new Request('http://emulator.local/api/v1/org/skills', {
        method: 'POST',
        headers: { ...json },
        body: JSON.stringify(skill),
      }),
    );
    for (const init of [
      { headers: { ...auth, origin } },
      { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } },
    ]) {
      const response = await call(emulator, '/api/v1/org/skills', init);
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe('origin_not_allowed');
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
      expect(response.headers.get('x-request-id')).toMatch(/^req_emu_/);
    }
  });

  it('takes a configured allow-list of strings, patterns or a function', async () => {
    const listed = createWorkspaceEmulator({ allowedOrigins: ['https://app.example', /\.test$/] });
    const fn = createWorkspaceEmulator({ allowedOrigins: (origin) => origin.endsWith('.corp') });
    const status = async (emulator: ReturnType<typeof createWorkspaceEmulator>, origin: string) =>
      (await call(emulator, '/api/v1/org/skills', { headers: { ...auth, origin } })).status;
    expect(await status(listed, 'https://app.example')).toBe(200);
    expect(await status(listed, 'https://x.test')).toBe(200);
    expect(await status(listed, 'http://localhost:5173')).toBe(403);
    expect(await status(fn, 'https://a.corp')).toBe(200);
    expect(await status(fn, 'https://a.example')).toBe(403);
  });

  it('refuses a body over maxBodyBytes with 413, announced or streamed', async () => {
    const emulator = createWorkspaceEmulator({ maxBodyBytes: 100 });
    const big = JSON.stringify({ ...skill, instructions: 'x'.repeat(200) });
    const announced = await post(emulator, big);
    expect(announced.status).toBe(413);
    expect(await codeOf(announced)).toBe('payload_too_large');
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new TextEncoder().encode('x'.repeat(64)));
      },
    });
    const streamed = await post(emulator, stream, { duplex: 'half' } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(pulled).toBeLessThan(10);
    expect(emulator.workspace(KEY).skills).toEqual([]);
    expect((await post(emulator, JSON.stringify(skill))).status).toBe(201);
  });

  it('bounds the objects per collection and the workspaces', async () => {
    const emulator = createWorkspaceEmulator({ maxItems: 2, maxWorkspaces: 2 });
    for (const slug of ['a', 'b']) {
      expect((await post(emulator, JSON.stringify({ ...skill, slug }))).status).toBe(201);
    }
    const full = await post(emulator, JSON.stringify({ ...skill, slug: 'c' }));
    expect(full.status).toBe(409);
    expect(await codeOf(full)).toBe('quota_exceeded');
    // Replacing an existing key still works when the collection is full.
    expect((await post(emulator, JSON.stringify({ ...skill, slug: 'a' }))).status).toBe(200);
    const other = (key: string) =>
      emulator.handle(
        new Request('http://emulator.local/api/v1/org/agents', {
          headers: { authorization: `Bearer ${key}` },
        }),
      );
    expect((await other('wk_second')).status).toBe(200);
    const third = await other('wk_third');
    expect(third.status).toBe(409);
    expect(await codeOf(third)).toBe('quota_exceeded');
  });

  it('bounds the bytes stored over all workspaces, and frees them on delete', async () => {
    const emulator = createWorkspaceEmulator({ maxStoredBytes: 2400 });
    const big = (slug: string) => JSON.stringify({ ...skill, slug, instructions: 'x'.repeat(600) });
    expect((await post(emulator, big('a'))).status).toBe(201);
    expect((await post(emulator, big('b'))).status).toBe(201);
    const full = await post(emulator, big('c'));
    expect(full.status).toBe(409);
    expect(await codeOf(full)).toBe('quota_exceeded');
    // Replacing with a same-size object fits; deleting frees room.
    expect((await post(emulator, big('a'))).status).toBe(200);
    expect((await call(emulator, '/api/v1/org/skills/b', { method: 'DELETE' })).status).toBe(204);
    expect((await post(emulator, big('c'))).status).toBe(201);
    emulator.reset();
    expect((await post(emulator, big('d'))).status).toBe(201);
  });

  // Measured on Node 24: tiny skills take about 470 bytes of heap each in the emulator (their
  // JSON is 150), an array of one-letter strings 13 bytes per element, text its UTF-8 size or less.
  it('counts many tiny objects against the byte budget as their memory would', async () => {
    const emulator = createWorkspaceEmulator({ maxStoredBytes: 100_000 });
    let stored = 0;
    for (let i = 0; i < 1000; i += 1) {
      const response = await post(emulator, JSON.stringify({ name: `s${i}`, instructions: 'x' }));
      if (response.status === 409) break;
      expect(response.status).toBe(201);
      stored += 1;
    }
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThanOrEqual(100_000 / 450);
  });

  it('counts the elements of a stored array against the byte budget', async () => {
    const emulator = createWorkspaceEmulator({ maxStoredBytes: 200_000 });
    const targets = Array.from({ length: 20_000 }, () => 'x');
    const response = await post(emulator, JSON.stringify({ ...skill, targets }));
    expect(response.status).toBe(409);
    expect(await codeOf(response)).toBe('quota_exceeded');
  });

  it('counts text in UTF-8 bytes against the byte budget', async () => {
    const emulator = createWorkspaceEmulator({ maxStoredBytes: 2400 });
    const euros = (slug: string) =>
      JSON.stringify({ ...skill, slug, instructions: '€'.repeat(600) });
    expect((await post(emulator, euros('a'))).status).toBe(201);
    expect((await post(emulator, euros('b'))).status).toBe(409);
  });

  it('keeps only the last 1000 recorded requests', async () => {
    const emulator = createWorkspaceEmulator();
    for (let i = 0; i < 1005; i += 1) await call(emulator, '/api/v1/org/skills');
    expect(emulator.requests).toHaveLength(1000);
  });
});

describe('a cap on what callers make the emulator keep is a positive integer', () => {
  it.each(
    ['maxBodyBytes', 'maxItems', 'maxWorkspaces', 'maxStoredBytes'].flatMap((option) =>
      [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY].map((value) => [option, value] as const),
    ),
  )(
    'createWorkspaceEmulator({ %s: %o }) throws a WorkspaceConfigError naming it',
    (option, value) => {
      expect(() => createWorkspaceEmulator({ [option]: value })).toThrow(WorkspaceConfigError);
      expect(() => createWorkspaceEmulator({ [option]: value })).toThrow(
        new RegExp(`^createWorkspaceEmulator: ${option} is .*: expected a positive integer\\.$`),
      );
    },
  );
});

it.each([
  [['dev.test', 'http://dev.test/'], 'allowedHosts[1] is a string: expected a host name.'],
  [[42], 'allowedHosts[0] is the number 42: expected a host name.'],
])(
  'createWorkspaceEmulator({ allowedHosts: %j }) names the entry that is not a host name',
  (allowedHosts, message) => {
    expect(() => createWorkspaceEmulator({ allowedHosts: allowedHosts as string[] })).toThrow(
      new WorkspaceConfigError(`createWorkspaceEmulator: ${message}`),
    );
  },
);

it('createWorkspaceEmulator refuses an unknown option, naming it and the known ones', () => {
  // A misspelt cap (`maxItem`) used to leave the default of 1000 in place.
  expect(() => createWorkspaceEmulator({ maxItem: 5 } as never)).toThrow(
    new WorkspaceConfigError(
      'createWorkspaceEmulator: unknown option "maxItem" (known: now, basePath, allowedOrigins, maxBodyBytes, maxItems, maxWorkspaces, maxStoredBytes, preview, allowedHosts).',
    ),
  );
  expect(() => createWorkspaceEmulator(null as never)).toThrow(
    new WorkspaceConfigError(
      'createWorkspaceEmulator: options is null: expected an options object.',
    ),
  );
});
