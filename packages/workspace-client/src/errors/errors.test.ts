import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { API, BASE, KEY, useMsw } from '../../test/msw.ts';
import { createWorkspaceClient } from '../client/create-workspace-client.ts';
import { WorkspaceApiError } from './api-error.ts';
import { AuthenticationError } from './authentication-error.ts';
import { BadRequestError } from './bad-request-error.ts';
import { WorkspaceConfigError } from './config-error.ts';
import { ConflictError } from './conflict-error.ts';
import { WorkspaceConnectionError } from './connection-error.ts';
import { InternalServerError } from './internal-server-error.ts';
import { NotFoundError } from './not-found-error.ts';
import { PermissionDeniedError } from './permission-denied-error.ts';
import { RateLimitError } from './rate-limit-error.ts';
import { UnprocessableEntityError } from './unprocessable-entity-error.ts';
import { WorkspaceValidationError } from './validation-error.ts';
import { isWorkspaceError, WorkspaceError } from './workspace-error.ts';

const server = useMsw();
const client = (apiKey: string | (() => Promise<string>) = KEY) =>
  createWorkspaceClient({ baseUrl: BASE, apiKey, retry: 0 });
const failWith = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  server.use(
    http.get(`${API}/skills`, () =>
      typeof body === 'string'
        ? new HttpResponse(body, { status, headers })
        : HttpResponse.json(body as object, { status, headers }),
    ),
  );
const caught = async (): Promise<WorkspaceApiError> =>
  (await client()
    .skills.list()
    .catch((e: unknown) => e)) as WorkspaceApiError;

describe('API errors', () => {
  it.each([
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [409, ConflictError],
    [422, UnprocessableEntityError],
    [429, RateLimitError],
    [500, InternalServerError],
    [501, InternalServerError],
    [418, WorkspaceApiError],
  ])('maps %i to %o', async (status, ErrorClass) => {
    failWith(status, { error: { code: 'some_code', message: 'Something broke' } });
    const error = await caught();
    expect(error).toBeInstanceOf(ErrorClass);
    expect(error).toBeInstanceOf(WorkspaceApiError);
    expect(error).toBeInstanceOf(WorkspaceError);
    expect(error.name).toBe(ErrorClass.name);
    expect(error.status).toBe(status);
  });

  it('exposes status, code, message, requestId, headers, body and retryAfterMs', async () => {
    const body = {
      error: { code: 'debrief_invalid', message: 'sections[0] is bad', details: { n: 1 } },
    };
    failWith(422, body, { 'x-request-id': 'req_123', 'retry-after': '2' });
    const error = await caught();
    expect(error).toMatchObject({
      status: 422,
      code: 'debrief_invalid',
      message: 'sections[0] is bad',
      requestId: 'req_123',
      body,
      retryAfterMs: 2000,
    });
    expect(error.headers['x-request-id']).toBe('req_123');
  });

  it.each([
    ['flat { code, message }', { code: 'flat', message: 'Flat message' }, 'flat', 'Flat message'],
    ['{ error: "text", code }', { error: 'Text error', code: 'c' }, 'c', 'Text error'],
    ['plain text', 'Gateway exploded', 'http_502', 'Gateway exploded'],
    ['an empty body', '', 'http_502', 'Request failed with status 502'],
  ])('reads code and message from %s', async (_label, body, code, message) => {
    failWith(502, body);
    const error = await caught();
    expect(error.code).toBe(code);
    expect(error.message).toBe(message);
  });

  it('takes requestId from the body when no header carries it', async () => {
    failWith(400, { error: { code: 'x', message: 'y' }, requestId: 'req_body' });
    expect((await caught()).requestId).toBe('req_body');
  });
});

describe('key redaction', () => {
  const leaks = (error: unknown) => {
    const views = [
      JSON.stringify(error),
      String(error),
      (error as Error).stack ?? '',
      inspect(error, { depth: 10, showHidden: true }),
    ];
    return views.some((view) => view.includes(KEY));
  };

  it('keeps the key out of API errors even when the service echoes it', async () => {
    failWith(
      401,
      {
        error: { code: 'bad_key', message: `Unknown key ${KEY}` },
        echo: { auth: `Bearer ${KEY}` },
      },
      { 'x-echo': KEY },
    );
    const error = await caught();
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toBe('Unknown key [redacted]');
    expect(leaks(error)).toBe(false);
  });

  it('keeps a token from an async apiKey out of errors', async () => {
    const token = 'wk_test_short_lived_token_42';
    server.use(
      http.get(`${API}/skills`, () =>
        HttpResponse.json({ error: { code: 'x', message: `bad ${token}` } }, { status: 403 }),
      ),
    );
    const error = await client(async () => token)
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PermissionDeniedError);
    expect(JSON.stringify(error)).not.toContain(token);
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(token);
  });

  it('keeps the key out of connection errors', async () => {
    server.use(http.get(`${API}/skills`, () => HttpResponse.error()));
    const error = await client()
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceConnectionError);
    expect(leaks(error)).toBe(false);
  });

  it('keeps the key out of validation errors and the client object', async () => {
    const error = await client()
      .skills.upsert({ name: KEY, instructions: '' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceValidationError);
    expect(leaks(error)).toBe(false);
    expect(inspect(client(), { depth: 10, showHidden: true })).not.toContain(KEY);
    expect(JSON.stringify(client())).not.toContain(KEY);
  });

  it('redacts a key shorter than six characters from body, headers and message', async () => {
    const short = 'k9Z2';
    server.use(
      http.get(`${API}/skills`, () =>
        HttpResponse.json(
          {
            error: { code: 'bad_key', message: `Unknown key ${short}` },
            echo: [`Bearer ${short}`],
          },
          { status: 401, headers: { 'x-echo': short } },
        ),
      ),
    );
    const error = (await client(short)
      .skills.list()
      .catch((e: unknown) => e)) as WorkspaceApiError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toBe('Unknown key [redacted]');
    expect(error.headers['x-echo']).toBe('[redacted]');
    expect(error.body).toEqual({
      error: { code: 'bad_key', message: 'Unknown key [redacted]' },
      echo: ['Bearer [redacted]'],
    });
    expect(inspect(error, { depth: 10, showHidden: true })).not.toContain(short);
  });
});

describe('unusable keys', () => {
  const views = (error: unknown) =>
    [JSON.stringify(error), String(error), inspect(error, { depth: 10, showHidden: true })].join(
      '\n',
    );

  it.each([
    ['a trailing newline', `${KEY}\n`],
    ['CR LF inside', `${KEY}\r\nx-injected: 1`],
    ['a space inside', 'wk_test abc'],
    ['non-ASCII', 'wk_test_clé'],
  ])('refuses a key string with %s at construction, without quoting it', (_label, key) => {
    let error: unknown;
    try {
      client(key as string);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(WorkspaceConfigError);
    expect((error as Error).cause).toBeUndefined();
    expect(views(error)).not.toContain(KEY);
    expect(views(error)).not.toContain('wk_test');
  });

  it('refuses a token with CR/LF from an async apiKey: WorkspaceConfigError, no cause, nothing sent', async () => {
    let sent = 0;
    server.use(
      http.get(`${API}/skills`, () => {
        sent += 1;
        return HttpResponse.json([]);
      }),
    );
    const error = await client(async () => `${KEY}\r\n`)
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceConfigError);
    expect((error as Error).cause).toBeUndefined();
    expect(views(error)).not.toContain(KEY);
    expect(sent).toBe(0);
  });
});

describe('isWorkspaceError', () => {
  it('recognises every error of the package, and one from another copy of it', () => {
    const errors = [
      new WorkspaceConfigError('maxRetries must be a whole number'),
      new WorkspaceConnectionError('GET /skills: fetch failed'),
      new WorkspaceError('x'),
    ];
    for (const error of errors) expect(isWorkspaceError(error), error.name).toBe(true);
    expect(isWorkspaceError(Object.assign(new Error('x'), { isWorkspaceError: true }))).toBe(true);
    expect(isWorkspaceError(new Error('x'))).toBe(false);
    expect(isWorkspaceError({ isWorkspaceError: true })).toBe(false);
  });
});
