import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { API, BASE, KEY, sequence, useMsw } from '../../test/msw.ts';
import { defineDebrief } from '../debrief/define-debrief.ts';
import { createWorkspaceEmulator } from '../emulator/emulator.ts';
import { WorkspaceResponseTooLargeError } from '../errors/response-too-large-error.ts';
import { createWorkspaceClient } from './create-workspace-client.ts';
import type { RequestEvent, ResponseEvent, WorkspaceClientOptions } from './options.ts';

const server = useMsw();
const client = (options: Partial<WorkspaceClientOptions> = {}) =>
  createWorkspaceClient({ baseUrl: BASE, apiKey: KEY, retry: 0, ...options });
const skill = { name: 'Pricing', slug: 'pricing', instructions: 'Quote list prices.' };

describe('withResponse()', () => {
  it('exposes status, headers and request id of a successful upsert (201 vs 200)', async () => {
    const emulator = createWorkspaceEmulator();
    const emulated = client({ fetch: (input, init) => emulator.handle(new Request(input, init)) });
    const first = await emulated.skills.upsert(skill).withResponse();
    const second = await emulated.skills.upsert(skill).withResponse();
    expect(first.response.status).toBe(201);
    expect(second.response.status).toBe(200);
    expect(first.response.requestId).toMatch(/^req_emu_/);
    expect(second.response.requestId).not.toBe(first.response.requestId);
    expect(first.response.headers['content-type']).toBe('application/json');
    expect(second.data.slug).toBe('pricing');
    // The request id is the one the emulator logged for that request.
    expect(emulator.requests.map((r) => r.status)).toEqual([201, 200]);
  });

  it('gives the request id of a successful debrief upsert, as the service logged it', async () => {
    const emulator = createWorkspaceEmulator();
    const seen: string[] = [];
    const emulated = client({
      fetch: async (input, init) => {
        const response = await emulator.handle(new Request(input, init));
        seen.push(response.headers.get('x-request-id') ?? '');
        return response;
      },
    });
    const debrief = defineDebrief({
      externalId: 'weekly-2025-w01',
      title: 'Week 1',
      pages: [{ title: 'Overview', html: '<h1>Hi</h1>' }],
    });
    const { data, response } = await emulated.debriefs.upsert(debrief).withResponse();
    expect(data.externalId).toBe('weekly-2025-w01');
    expect(response.status).toBe(201);
    expect(response.requestId).toBe(seen[0]);
    const again = await emulated.debriefs.get('weekly-2025-w01').withResponse();
    expect(again.response).toMatchObject({ status: 200, requestId: seen[1] });
  });

  it('sends one request whichever form is used, and resolves plain data when awaited', async () => {
    const { handler, seen } = sequence('get', '/skills', [
      () => HttpResponse.json([skill], { headers: { 'request-id': 'req_alt' } }),
    ]);
    server.use(handler);
    const call = client().skills.list();
    const { data, response } = await call.withResponse();
    expect(await call).toEqual([skill]);
    expect(data).toEqual([skill]);
    expect(response.requestId).toBe('req_alt');
    expect(seen).toHaveLength(1);
  });

  it('gives the response of a delete and of an empty 204 upsert', async () => {
    server.use(
      http.delete(`${API}/agents/a`, () => new HttpResponse(null, { status: 204 })),
      http.post(`${API}/skills`, () => new HttpResponse(null, { status: 204 })),
    );
    const deleted = await client().agents.delete('a').withResponse();
    expect(deleted).toMatchObject({ data: undefined, response: { status: 204 } });
    const saved = await client().skills.upsert(skill).withResponse();
    expect(saved.data).toEqual(skill);
    expect(saved.response.status).toBe(204);
  });

  it('rejects withResponse() with the same typed error', async () => {
    server.use(
      http.get(`${API}/debriefs/x`, () =>
        HttpResponse.json({ error: { code: 'not_found', message: 'gone' } }, { status: 404 }),
      ),
    );
    await expect(client().debriefs.get('x').withResponse()).rejects.toMatchObject({
      status: 404,
      code: 'not_found',
    });
  });
});

describe('per-request headers', () => {
  it('merges call headers over client headers, never over the reserved ones', async () => {
    const { handler, seen } = sequence('get', '/skills', [() => HttpResponse.json([])]);
    server.use(handler);
    await client({ headers: { 'x-team': 'sales', 'x-trace': 'client' } }).skills.list({
      headers: { 'X-Trace': 'call-1', authorization: 'Bearer stolen', accept: 'text/html' },
    });
    const headers = seen[0]?.headers;
    expect(headers?.get('x-team')).toBe('sales');
    expect(headers?.get('x-trace')).toBe('call-1');
    expect(headers?.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(headers?.get('accept')).toBe('application/json');
  });
});

describe('onRequest / onResponse', () => {
  it('reports every attempt with the key redacted, including retries and error statuses', async () => {
    const { handler } = sequence('get', '/skills', [
      () =>
        HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after-ms': '1' } }),
      () => HttpResponse.json([], { headers: { 'x-request-id': 'req_2' } }),
    ]);
    server.use(handler);
    const requests: RequestEvent[] = [];
    const responses: ResponseEvent[] = [];
    await client({
      retry: 1,
      onRequest: (event) => requests.push(event),
      onResponse: (event) => responses.push(event),
    }).skills.list();
    expect(requests.map((r) => [r.method, r.url, r.retryCount])).toEqual([
      ['GET', `${API}/skills`, 0],
      ['GET', `${API}/skills`, 1],
    ]);
    expect(requests[0]?.headers.authorization).toBe('Bearer [redacted]');
    expect(JSON.stringify(requests)).not.toContain(KEY);
    expect(responses.map((r) => [r.status, r.requestId, r.retryCount])).toEqual([
      [503, undefined, 0],
      [200, 'req_2', 1],
    ]);
    expect(responses[1]?.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('ignores a throwing hook', async () => {
    server.use(http.get(`${API}/skills`, () => HttpResponse.json([skill])));
    const boom = () => {
      throw new Error('logger down');
    };
    await expect(client({ onRequest: boom, onResponse: boom }).skills.list()).resolves.toEqual([
      skill,
    ]);
  });
});

describe('maxResponseBytes', () => {
  const big = JSON.stringify([{ ...skill, instructions: 'x'.repeat(5000) }]);

  it('refuses a body announced larger than the limit without reading it', async () => {
    server.use(
      http.get(
        `${API}/skills`,
        () =>
          new HttpResponse(big, {
            headers: { 'content-type': 'application/json', 'content-length': String(big.length) },
          }),
      ),
    );
    const error = await client({ maxResponseBytes: 1000 })
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceResponseTooLargeError);
    expect((error as WorkspaceResponseTooLargeError).limitBytes).toBe(1000);
    expect((error as Error).message).toContain('GET /skills');
  });

  it('stops reading a streamed body once it passes the limit, without retrying', async () => {
    let pulled = 0;
    const chunk = new TextEncoder().encode('x'.repeat(1024));
    const { handler, seen } = sequence('get', '/skills', [
      () =>
        new HttpResponse(
          new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled += 1;
              if (pulled > 1000) controller.close();
              else controller.enqueue(chunk);
            },
          }),
          { headers: { 'content-type': 'application/json' } },
        ),
    ]);
    server.use(handler);
    const error = await client({ maxResponseBytes: 10_000, retry: 2 })
      .skills.list()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkspaceResponseTooLargeError);
    expect(pulled).toBeLessThan(100);
    expect(seen).toHaveLength(1);
  });

  it('reads a body right at the limit', async () => {
    server.use(http.get(`${API}/skills`, () => new HttpResponse(big)));
    const list = await client({ maxResponseBytes: big.length }).skills.list();
    expect(list[0]?.name).toBe('Pricing');
  });
});
