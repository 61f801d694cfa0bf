import { HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { API, BASE, KEY, sequence, useMsw } from '../../test/msw.ts';
import { defineDebrief } from '../debrief/define-debrief.ts';
import { WorkspaceConfigError } from '../errors/config-error.ts';
import { WorkspaceConnectionError } from '../errors/connection-error.ts';
import { WorkspaceValidationError } from '../errors/validation-error.ts';
import { BASE_PERSONA_IDS } from '../schemas/agent.ts';
import { SLUG_PATTERN } from '../schemas/common.ts';
import { createDebriefsClient, createWorkspaceClient } from './create-workspace-client.ts';
import type { WorkspaceClientOptions } from './options.ts';
import { RETRY_STATUS_CODES } from './transport.ts';

const server = useMsw();
const client = (options: Partial<WorkspaceClientOptions> = {}) =>
  createWorkspaceClient({ baseUrl: BASE, apiKey: KEY, retry: 0, ...options });
const skill = { name: 'Pricing', slug: 'pricing', instructions: 'Quote list prices.' };
const debrief = defineDebrief({
  externalId: 'weekly:2025-w01',
  title: 'Week 1',
  pages: [{ title: 'Overview', html: '<h1>Hi</h1>' }],
});

describe('requests', () => {
  it('sends JSON with the bearer key to {baseUrl}/api/v1/org and only CORS-friendly headers', async () => {
    const { handler, seen } = sequence('post', '/skills', [() => HttpResponse.json(skill)]);
    server.use(handler);
    await client().skills.upsert(skill);
    const [request] = seen;
    expect(request?.url).toBe(`${API}/skills`);
    expect(request?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(request?.headers.get('content-type')).toBe('application/json');
    expect(request?.body).toEqual(skill);
    const names = [...(request?.headers.keys() ?? [])].filter(
      (name) =>
        ![
          'host',
          'connection',
          'user-agent',
          'accept-encoding',
          'accept-language',
          'sec-fetch-mode',
          'content-length',
        ].includes(name),
    );
    expect(names.sort()).toEqual(['accept', 'authorization', 'content-type']);
  });

  it.each([
    ['https://svc.test/', `${API}/skills`],
    ['https://svc.test/api/v1/org', `${API}/skills`],
    ['https://svc.test/tenant-a', 'https://svc.test/tenant-a/api/v1/org/skills'],
  ])('resolves baseUrl %s', async (baseUrl, expected) => {
    const seen: string[] = [];
    server.use(
      http.get('https://svc.test/*', ({ request }) => {
        seen.push(request.url);
        return HttpResponse.json([]);
      }),
    );
    await client({ baseUrl }).skills.list();
    expect(seen).toEqual([expected]);
  });

  it('percent-encodes path keys', async () => {
    const seen: string[] = [];
    server.use(
      http.get(`${API}/debriefs/*`, ({ request }) => {
        seen.push(new URL(request.url).pathname);
        return HttpResponse.json({ externalId: 'a/b c?d#e' });
      }),
      http.delete(`${API}/skills/*`, ({ request }) => {
        seen.push(new URL(request.url).pathname);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    await client().debriefs.get('a/b c?d#e');
    await client().skills.delete('100%');
    expect(seen).toEqual(['/api/v1/org/debriefs/a%2Fb%20c%3Fd%23e', '/api/v1/org/skills/100%25']);
  });

  it('never lets user headers replace content-type, accept or authorization', async () => {
    const { handler, seen } = sequence('post', '/skills', [() => HttpResponse.json(skill)]);
    const list = sequence('get', '/skills', [() => HttpResponse.json([])]);
    server.use(handler, list.handler);
    const headers = {
      'Content-Type': 'text/plain',
      ACCEPT: 'text/html',
      Authorization: 'Bearer wk_someone_else',
      'x-trace-id': 't-1',
    };
    await client({ headers }).skills.upsert(skill);
    await client({ headers }).skills.list();
    const [post] = seen;
    expect(post?.headers.get('content-type')).toBe('application/json');
    expect(post?.headers.get('accept')).toBe('application/json');
    expect(post?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(post?.headers.get('x-trace-id')).toBe('t-1');
    const [get] = list.seen;
    expect(get?.headers.get('content-type')).toBeNull();
    expect(get?.headers.get('accept')).toBe('application/json');
    expect(get?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
  });

  it.each(['', ' ', '.', '..'])('refuses the path key %j without sending anything', async (key) => {
    const error = await client()
      .debriefs.get(key)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceValidationError);
    expect((error as WorkspaceValidationError).side).toBe('request');
  });
});

describe('strict writer', () => {
  it('refuses organizationId with a clear error and sends nothing', async () => {
    const { handler, seen } = sequence('post', '/skills', [() => HttpResponse.json(skill)]);
    server.use(handler);
    const error = await client()
      .skills.upsert({ ...skill, organizationId: 'org_1' } as never)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceValidationError);
    expect((error as WorkspaceValidationError).issues).toEqual([
      {
        path: 'organizationId',
        message: '`organizationId` must never be sent: the workspace is derived from the key',
      },
    ]);
    expect(seen).toHaveLength(0);
  });

  it('refuses organizationId on agents and debriefs too', async () => {
    for (const call of [
      () => client().agents.upsert({ name: 'A', slug: 'a', organizationId: 'x' } as never),
      () => client().debriefs.upsert({ ...debrief, organizationId: 'x' } as never),
    ]) {
      const error = (await call().catch((e: unknown) => e)) as WorkspaceValidationError;
      expect(error.issues.map((i) => i.path)).toEqual(['organizationId']);
    }
  });

  it('reports every problem at once, with paths', async () => {
    const error = (await client()
      .skills.upsert({ name: '', slug: 'not/a/slug', instructions: 3, extra: true } as never)
      .catch((e: unknown) => e)) as WorkspaceValidationError;
    expect(error.issues.map((i) => i.path).sort()).toEqual([
      'extra',
      'instructions',
      'name',
      'slug',
    ]);
    expect(error.message).toContain('Invalid shared skill (4 problems)');
  });

  it('says "Required" for a missing field, "Unknown field" for an extra one, and never echoes values', async () => {
    const error = (await client()
      .skills.upsert({ slug: 'x', secretish: 'hunter2-value' } as never)
      .catch((e: unknown) => e)) as WorkspaceValidationError;
    expect([...error.issues].sort((a, b) => a.path.localeCompare(b.path))).toEqual([
      { path: 'instructions', message: 'Required' },
      { path: 'name', message: 'Required' },
      { path: 'secretish', message: 'Unknown field' },
    ]);
    const notObject = (await client()
      .skills.upsert('hunter2-value' as never)
      .catch((e: unknown) => e)) as WorkspaceValidationError;
    expect(notObject.issues).toEqual([{ path: '', message: 'Expected an object' }]);
    const nested = (await client()
      .debriefs.upsert({
        ...debrief,
        contract: { ...debrief.contract, svc: 'hunter2-value' },
      } as never)
      .catch((e: unknown) => e)) as WorkspaceValidationError;
    expect(nested.issues).toEqual([{ path: 'contract.svc', message: 'Expected an object' }]);
    for (const e of [error, notObject, nested]) expect(e.message).not.toContain('hunter2');
  });

  it('accepts a service-made slug such as "sales.playbook" for upserts, references and deletes', async () => {
    const skills = sequence('post', '/skills', [
      () => HttpResponse.json({ ...skill, slug: 'sales.playbook' }),
    ]);
    const agents = sequence('post', '/agents', [
      () => HttpResponse.json({ name: 'A', slug: 'Deal Desk' }),
    ]);
    const removed = sequence('delete', '/skills/sales.playbook', [
      () => new HttpResponse(null, { status: 204 }),
    ]);
    server.use(skills.handler, agents.handler, removed.handler);
    await client().skills.upsert({ ...skill, slug: 'sales.playbook' });
    await client().agents.upsert({
      name: 'A',
      slug: 'Deal Desk',
      selectedSkillSlugs: ['sales.playbook'],
    });
    await client().skills.delete('sales.playbook');
    expect(skills.seen[0]?.body).toMatchObject({ slug: 'sales.playbook' });
    expect(agents.seen[0]?.body).toMatchObject({ selectedSkillSlugs: ['sales.playbook'] });
    expect(removed.seen).toHaveLength(1);
  });
});

describe('tolerant reader', () => {
  it.each([
    ['a bare array', [skill]],
    ['{ skills: [...] }', { skills: [skill], nextCursor: null }],
    ['{ data: [...] }', { data: [skill] }],
    ['{ items: [...] }', { items: [skill] }],
  ])('reads a list given as %s', async (_label, body) => {
    server.use(http.get(`${API}/skills`, () => HttpResponse.json(body)));
    expect(await client().skills.list()).toEqual([skill]);
  });

  it('keeps unknown fields', async () => {
    const stored = { ...skill, id: 'sk_1', createdAt: '2025-01-01T00:00:00Z', owner: { id: 7 } };
    server.use(http.get(`${API}/skills`, () => HttpResponse.json([stored])));
    expect(await client().skills.list()).toEqual([stored]);
  });

  it('unwraps { skill: {...} } and { data: {...} } single-object answers', async () => {
    server.use(
      http.post(`${API}/skills`, () => HttpResponse.json({ skill: { ...skill, id: 'sk_1' } })),
      http.post(`${API}/agents`, () => HttpResponse.json({ data: { name: 'A', slug: 'a' } })),
    );
    expect(await client().skills.upsert(skill)).toEqual({ ...skill, id: 'sk_1' });
    expect(await client().agents.upsert({ name: 'A', slug: 'a' })).toEqual({
      name: 'A',
      slug: 'a',
    });
  });

  it('resolves a delete answered 200 with a non-JSON body without parsing it', async () => {
    server.use(
      http.delete(
        `${API}/skills/a`,
        () => new HttpResponse('OK', { status: 200, headers: { 'content-type': 'text/plain' } }),
      ),
      http.delete(`${API}/agents/a`, () => new HttpResponse('<html>done', { status: 202 })),
    );
    await expect(client().skills.delete('a')).resolves.toBeUndefined();
    await expect(client().agents.delete('a')).resolves.toBeUndefined();
  });

  it('accepts 204 and 200-with-body deletes, and an empty upsert answer', async () => {
    server.use(
      http.delete(`${API}/skills/a`, () => new HttpResponse(null, { status: 204 })),
      http.delete(`${API}/agents/a`, () => HttpResponse.json({ deleted: true })),
      http.post(`${API}/skills`, () => new HttpResponse('', { status: 200 })),
    );
    await expect(client().skills.delete('a')).resolves.toBeUndefined();
    await expect(client().agents.delete('a')).resolves.toBeUndefined();
    await expect(client().skills.upsert(skill)).resolves.toEqual(skill);
  });

  it('rejects an unreadable answer with a response-side WorkspaceValidationError', async () => {
    server.use(
      http.get(`${API}/skills`, () => HttpResponse.json([{ slug: 'no-name' }])),
      http.get(`${API}/agents`, () => HttpResponse.json({ unexpected: true })),
      http.get(`${API}/debriefs`, () => new HttpResponse('<html>', { status: 200 })),
    );
    const errors = await Promise.all([
      client()
        .skills.list()
        .catch((e: unknown) => e),
      client()
        .agents.list()
        .catch((e: unknown) => e),
      client()
        .debriefs.list()
        .catch((e: unknown) => e),
    ]);
    for (const error of errors) {
      expect(error).toBeInstanceOf(WorkspaceValidationError);
      expect((error as WorkspaceValidationError).side).toBe('response');
    }
    expect((errors[0] as WorkspaceValidationError).issues[0]?.path).toBe('[0].name');
  });

  it('returns answers unchecked with validateResponses: false', async () => {
    server.use(http.get(`${API}/skills`, () => HttpResponse.json([{ slug: 'no-name' }])));
    expect(await client({ validateResponses: false }).skills.list()).toEqual([{ slug: 'no-name' }]);
  });

  it('returns the saved debrief, including its externalId', async () => {
    server.use(
      http.post(`${API}/debriefs`, async ({ request }) =>
        HttpResponse.json({ ...((await request.json()) as object), id: 'db_1' }, { status: 201 }),
      ),
    );
    const saved = await createDebriefsClient({ baseUrl: BASE, apiKey: KEY }).upsert(debrief);
    expect(saved.externalId).toBe('weekly:2025-w01');
    expect(saved.id).toBe('db_1');
  });
});

describe('configuration', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it.each([
    [
      { baseUrl: 'not a url', apiKey: KEY },
      /^createWorkspaceClient: baseUrl is a string: expected an absolute http\(s\) URL without credentials/,
    ],
    [
      { baseUrl: 'ftp://svc.test', apiKey: KEY },
      /baseUrl is a string: expected an absolute http\(s\) URL/,
    ],
    [{ baseUrl: 'https://user:pw@svc.test', apiKey: KEY }, /credentials/],
    [
      { baseUrl: BASE, apiKey: '' },
      /^createWorkspaceClient: apiKey is an empty string: expected a key or a function returning a token/,
    ],
    [
      { baseUrl: undefined, apiKey: KEY },
      /^createWorkspaceClient: baseUrl is undefined: expected an absolute http\(s\) URL/,
    ],
    [
      { baseUrl: BASE, apiKey: `${KEY}\n` },
      /^createWorkspaceClient: apiKey is a string: expected printable ASCII/,
    ],
    [{ baseUrl: BASE, apiKey: KEY, retry: -1 }, /retry.limit/],
    [
      { baseUrl: BASE, apiKey: KEY, timeout: 'abc' },
      /^createWorkspaceClient: timeout is a string: expected false or a whole number of ms/,
    ],
    [{ baseUrl: BASE, apiKey: KEY, timeout: -5 }, /timeout is the number -5: expected false or/],
    // A key read as a number (unquoted in a YAML file) is not printed.
    [
      { baseUrl: BASE, apiKey: 8675309123 },
      /^createWorkspaceClient: apiKey is a number: expected a key or a function returning a token\.$/,
    ],
    [{ baseUrl: BASE, apiKey: KEY, timeout: 0 }, /timeout is the number 0: expected false or/],
    [{ baseUrl: BASE, apiKey: KEY, totalTimeout: Number.NaN }, /totalTimeout is NaN: expected/],
    [
      { baseUrl: BASE, apiKey: KEY, totalTimeout: 2 ** 31 },
      /totalTimeout is the number 2147483648: expected/,
    ],
    [{ baseUrl: BASE, apiKey: KEY, retry: { baseDelayMs: 'x' } }, /retry.baseDelayMs/],
    [
      { baseUrl: BASE, apiKey: KEY, onRetry: 'log' },
      /^createWorkspaceClient: onRetry is a string: expected a function\.$/,
    ],
    [{ baseUrl: BASE, apiKey: KEY, onRequest: {} }, /onRequest is an object: expected a function/],
    [
      { baseUrl: BASE, apiKey: KEY, onResponse: 1 },
      /onResponse is the number 1: expected a function/,
    ],
    [
      { baseUrl: BASE, apiKey: KEY, headers: { 'x-n': 1 } },
      /^createWorkspaceClient: headers is an object: expected an object of string values/,
    ],
    [
      { baseUrl: BASE, apiKey: KEY, maxResponseBytes: 0 },
      /maxResponseBytes is the number 0: expected a positive integer/,
    ],
    [{ baseUrl: BASE, apiKey: KEY, maxResponseBytes: 1.5 }, /maxResponseBytes/],
  ])('throws WorkspaceConfigError for %j', (options, message) => {
    expect(() => createWorkspaceClient(options as WorkspaceClientOptions)).toThrowError(message);
    expect(() => createWorkspaceClient(options as WorkspaceClientOptions)).toThrowError(
      WorkspaceConfigError,
    );
  });

  // What a careless user or a hostile configuration passes for the retry policy: a
  // WorkspaceConfigError naming the setting, at creation and per call.
  it.each([
    ...[-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, 1e300, '3', null].map(
      (limit) => ['retry.limit', { limit }] as const,
    ),
    ...[2 ** 53, 1e300].map((retry) => ['retry.limit', retry] as const),
    ...['baseDelayMs', 'maxDelayMs', 'maxRetryAfterMs'].flatMap((key) =>
      [-1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 53, '500', '', null].map(
        (value) => [`retry.${key}`, { [key]: value }] as const,
      ),
    ),
    ...['3', '', [3], true].map((retry) => ['retry', retry] as const),
  ])('refuses %s in %j, naming it', async (name, retry) => {
    const options = { baseUrl: BASE, apiKey: KEY, retry } as unknown as WorkspaceClientOptions;
    const path = name.replace('.', '\\.');
    expect(() => createWorkspaceClient(options)).toThrowError(
      new RegExp(`^createWorkspaceClient: ${path} is `),
    );
    expect(() => createWorkspaceClient(options)).toThrowError(WorkspaceConfigError);
    // The same policy given to one call.
    const client = createWorkspaceClient({ baseUrl: BASE, apiKey: KEY });
    const call = await client.skills.list({ retry } as never).catch((error: unknown) => error);
    expect(call).toBeInstanceOf(WorkspaceConfigError);
    expect((call as Error).message).toMatch(new RegExp(`^request options: ${path} is `));
  });

  // A JavaScript caller gets no compile error for a misspelt option: it used to be ignored.
  const KNOWN =
    '(known: baseUrl, apiKey, fetch, timeout, totalTimeout, retry, onRetry, onRequest, onResponse, maxResponseBytes, validateResponses, headers, dangerouslyAllowBrowser).';
  it.each([
    [{ maxRetry: 5 }, `unknown option "maxRetry" ${KNOWN}`],
    [{ timeoutMs: 5, apikey: 'wk_secret_value' }, `unknown options "timeoutMs", "apikey" ${KNOWN}`],
    [
      { retry: { limt: 5 } },
      'retry: unknown option "limt" (known: limit, baseDelayMs, maxDelayMs, maxRetryAfterMs, jitter).',
    ],
  ])('refuses the unknown option(s) in %j, naming keys and never values', (extra, message) => {
    for (const [create, factory] of [
      [createWorkspaceClient, 'createWorkspaceClient'],
      [createDebriefsClient, 'createDebriefsClient'],
    ] as const) {
      const options = { baseUrl: BASE, apiKey: KEY, ...extra } as WorkspaceClientOptions;
      expect(() => create(options)).toThrow(new WorkspaceConfigError(`${factory}: ${message}`));
    }
  });

  it('refuses unknown per-call options and retry settings before sending', async () => {
    const { handler, seen } = sequence('get', '/skills', [() => HttpResponse.json([])]);
    server.use(handler);
    await expect(client().skills.list({ timout: 5 } as never)).rejects.toThrow(
      new WorkspaceConfigError(
        'request options: unknown option "timout" (known: signal, timeout, totalTimeout, retry, headers).',
      ),
    );
    await expect(client().skills.list({ retry: { jiter: false } } as never)).rejects.toThrow(
      /^request options: retry: unknown option "jiter" \(known: limit, /,
    );
    expect(seen).toHaveLength(0);
  });

  it('names createDebriefsClient, the factory called, in its option errors', () => {
    for (const [options, message] of [
      [{ baseUrl: 'ftp://svc.test', apiKey: KEY }, 'baseUrl is a string: expected an absolute'],
      [{ baseUrl: BASE, apiKey: undefined }, 'apiKey is undefined: expected a key'],
      [{ baseUrl: BASE, apiKey: KEY, timeout: -1 }, 'timeout is the number -1: expected'],
      [{ baseUrl: BASE, apiKey: KEY, onRetry: 'log' }, 'onRetry is a string: expected a function'],
      [{ baseUrl: BASE, apiKey: KEY, retry: { limit: -1 } }, 'retry.limit is the number -1:'],
    ] as const) {
      expect(() => createDebriefsClient(options as WorkspaceClientOptions)).toThrow(
        `createDebriefsClient: ${message}`,
      );
    }
  });

  it('keeps retry 0 (never retry) and the largest safe retries and delays', () => {
    const largest = {
      limit: Number.MAX_SAFE_INTEGER,
      baseDelayMs: 0,
      maxDelayMs: 2 ** 31 - 1,
      jitter: false,
    };
    for (const retry of [0, largest])
      expect(() => createWorkspaceClient({ baseUrl: BASE, apiKey: KEY, retry })).not.toThrow();
  });

  it('refuses a workspace key string in a browser unless dangerouslyAllowBrowser', async () => {
    vi.stubGlobal('document', {});
    expect(() => createWorkspaceClient({ baseUrl: BASE, apiKey: KEY })).toThrowError(
      /^createWorkspaceClient: apiKey is a string: a secret, refused in a browser: pass a function/,
    );
    expect(() =>
      createWorkspaceClient({ baseUrl: BASE, apiKey: KEY, dangerouslyAllowBrowser: true }),
    ).not.toThrow();
    server.use(http.get(`${API}/skills`, () => HttpResponse.json([])));
    const tokenClient = createWorkspaceClient({
      baseUrl: BASE,
      apiKey: async () => 'wk_test_short_lived',
    });
    await expect(tokenClient.skills.list()).resolves.toEqual([]);
  });

  it('validates per-call timeouts and headers before sending', async () => {
    const { handler, seen } = sequence('get', '/skills', [() => HttpResponse.json([])]);
    server.use(handler);
    const bad = [{ timeout: -5 }, { totalTimeout: 'soon' }, { headers: { 'x-n': 2 } }];
    for (const options of bad) {
      await expect(client().skills.list(options as never)).rejects.toThrowError(
        WorkspaceConfigError,
      );
    }
    expect(seen).toHaveLength(0);
  });

  it('keeps refusing a string key in a browser whose page clobbers window.Deno', () => {
    // <div id="Deno"> makes window.Deno an element: it must not pass for the Deno runtime.
    vi.stubGlobal('document', {});
    vi.stubGlobal('Deno', { id: 'Deno', version: { deno: {} } });
    expect(() => createWorkspaceClient({ baseUrl: BASE, apiKey: KEY })).toThrowError(
      /^createWorkspaceClient: apiKey is a string: a secret, refused in a browser: pass a function/,
    );
    vi.stubGlobal('Deno', { version: { deno: '2.5.0' } });
    expect(() => createWorkspaceClient({ baseUrl: BASE, apiKey: KEY })).not.toThrow();
  });

  it('exports frozen constants', () => {
    expect(Object.isFrozen(RETRY_STATUS_CODES)).toBe(true);
    expect(() => (RETRY_STATUS_CODES as number[]).push(404)).toThrow(TypeError);
    expect(Object.isFrozen(BASE_PERSONA_IDS)).toBe(true);
    expect(Object.isFrozen(SLUG_PATTERN)).toBe(true);
    expect(SLUG_PATTERN.test('sales-playbook')).toBe(true);
  });

  it('reports a failing apiKey function without sending', async () => {
    const { handler, seen } = sequence('get', '/skills', [() => HttpResponse.json([])]);
    server.use(handler);
    const failing = client({
      apiKey: async () => {
        throw new Error('token service down');
      },
    });
    await expect(failing.skills.list()).rejects.toThrowError('The apiKey function failed');
    await expect(client({ apiKey: async () => '' }).skills.list()).rejects.toBeInstanceOf(
      WorkspaceConfigError,
    );
    expect(seen).toHaveLength(0);
  });

  it('retries and maps network failures whatever the runtime calls them (fetch TypeError)', async () => {
    const fetch = vi.fn(async (): Promise<Response> => {
      throw new TypeError(
        'ECONNREFUSED: Unable to connect. Is the computer able to access the url?',
      );
    });
    const error = await client({ fetch, retry: { limit: 1, baseDelayMs: 1 } })
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceConnectionError);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('names the address and the runtime reason of a connection failure', async () => {
    const fetch = vi.fn(async (): Promise<Response> => {
      const lookup = Object.assign(new Error('getaddrinfo ENOTFOUND svc.example.com'), {
        code: 'ENOTFOUND',
      });
      throw new TypeError('fetch failed', { cause: lookup });
    });
    const error = await client({ fetch, retry: 0 })
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceConnectionError);
    expect((error as Error).message).toBe(
      `GET ${API}/skills failed: fetch failed: getaddrinfo ENOTFOUND svc.example.com`,
    );
    expect((error as Error).message).not.toContain(KEY);
  });

  it('uses an injected fetch', async () => {
    const fetch = vi.fn(async () => Response.json([skill]));
    expect(await client({ fetch }).skills.list()).toEqual([skill]);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
