import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../test/fixture-gateway.ts';
import { ApprovalDecisionError } from '../approvals/approval-decision-error.ts';
import { ErrorEnvelopeSchema } from '../contract/index.ts';
import { MemoryRecordStore } from '../records/memory-record-store.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';

const gateway = fixtureGateway({ maxBodyBytes: 1024 });
const client = createTestClient(gateway, { token: TOKEN });

function post(
  body: BodyInit,
  headers: Record<string, string> = { 'content-type': 'application/json' },
) {
  return client.request('/v1/invoke', { method: 'POST', headers, body });
}

function expectEnvelope(response: { status: number; body: unknown }, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(v.is(ErrorEnvelopeSchema, response.body)).toBe(true);
  expect((response.body as { error: { code: string } }).error.code).toBe(code);
}

describe('routing and HTTP errors', () => {
  it('answers 404 not_found for unknown routes, including near misses', async () => {
    for (const path of [
      '/',
      '/v1',
      '/v2/manifest',
      '/v1/manifest/',
      '/v1/invoke/x',
      '/v1/jobs/',
      '/v1/jobs/a/b',
    ]) {
      expectEnvelope(await client.request(path), 404, 'not_found');
    }
  });

  it('answers 405 with Allow for a wrong method', async () => {
    const cases = [
      ['/v1/manifest', 'POST', 'GET'],
      ['/v1/invoke', 'GET', 'POST'],
      ['/v1/invoke', 'PUT', 'POST'],
      ['/v1/jobs/j1', 'DELETE', 'GET'],
      ['/v1/jobs/j1/cancel', 'GET', 'POST'],
    ] as const;
    for (const [path, method, allow] of cases) {
      const response = await client.request(path, { method });
      expectEnvelope(response, 405, 'method_not_allowed');
      expect(response.headers.get('allow')).toBe(allow);
    }
  });

  it('answers 415 for a body that is not declared as JSON', async () => {
    const body = JSON.stringify(invokeBody('lookup-account', { accountId: 'a' }));
    expectEnvelope(
      await post(body, { 'content-type': 'text/plain' }),
      415,
      'unsupported_media_type',
    );
    expectEnvelope(await post(body, {}), 415, 'unsupported_media_type');
    // Parameters are fine.
    const ok = await post(body, { 'content-type': 'Application/JSON; charset=utf-8' });
    expect(ok.status).toBe(200);
  });

  it('answers 400 malformed_json for invalid JSON, invalid UTF-8, deep nesting and __proto__ keys', async () => {
    expectEnvelope(await post('{"invocationId":'), 400, 'malformed_json');
    expectEnvelope(await post(new Uint8Array([0x7b, 0xff, 0x7d])), 400, 'malformed_json');
    expectEnvelope(await post(`${'['.repeat(100)}${']'.repeat(100)}`), 400, 'malformed_json');
    const polluting = JSON.stringify(invokeBody('lookup-account', { accountId: 'a' })).replace(
      '"accountId"',
      '"__proto__":{"isAdmin":true},"accountId"',
    );
    expectEnvelope(await post(polluting), 400, 'malformed_json');
    expect(({} as { isAdmin?: boolean }).isAdmin).toBeUndefined();
  });

  it('answers 422 for JSON that is not an object', async () => {
    for (const body of ['[]', '"text"', '42', 'null']) {
      expectEnvelope(await post(body), 422, 'invalid_request');
    }
  });

  it('answers 413 for a body over the limit, declared or streamed without Content-Length', async () => {
    const big = JSON.stringify({
      ...invokeBody('lookup-account', { accountId: 'x'.repeat(2000) }),
    });
    expectEnvelope(await post(big), 413, 'payload_too_large');
    const encoder = new TextEncoder();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(encoder.encode('x'.repeat(200)));
        controller.close();
      },
    });
    const response = await gateway.fetch(
      new Request('https://gateway.acme.example/v1/invoke', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
  });

  it('checks authentication before reading the body', async () => {
    const anonymous = createTestClient(gateway);
    const response = await anonymous.request('/v1/invoke', {
      method: 'POST',
      body: 'not json at all',
    });
    expectEnvelope(response, 401, 'unauthorized');
  });

  it('answers 404 job_not_found for an unknown job, after authentication', async () => {
    expectEnvelope(await client.job('job_1'), 404, 'job_not_found');
    expectEnvelope(await client.cancel('job_1'), 404, 'job_not_found');
    expectEnvelope(await createTestClient(gateway).job('job_1'), 401, 'unauthorized');
  });

  it('answers 404 for ids it never handed out (a NUL, 9 KB) without asking a store that refuses such keys', async () => {
    // As Postgres (text holds no NUL) and Durable Objects (keys end at 2 KiB) do.
    const odd = (key: string): boolean => key.includes('\u0000') || key.length > 2048;
    const jobStore = new MemoryJobStore();
    const getJob = jobStore.get.bind(jobStore);
    jobStore.get = async (jobId) => {
      if (odd(jobId)) throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
      return getJob(jobId);
    };
    const recordStore = new MemoryRecordStore();
    const getRecord = recordStore.get.bind(recordStore);
    recordStore.get = (async (key: string) => {
      if (odd(key)) throw new Error('invalid byte sequence for encoding "UTF8": 0x00');
      return getRecord(key);
    }) as typeof recordStore.get;
    const strict = fixtureGateway({ jobStore, recordStore });
    const caller = createTestClient(strict, { token: TOKEN });
    for (const id of ['job_%00', `job_${'a'.repeat(9_000)}`, '%00', 'job_%F0%9F%98%80']) {
      expectEnvelope(await caller.request(`/v1/jobs/${id}`), 404, 'job_not_found');
      expectEnvelope(
        await caller.request(`/v1/jobs/${id}/cancel`, { method: 'POST' }),
        404,
        'job_not_found',
      );
      const approvalId = id.replace('job_', 'apr_');
      expectEnvelope(
        await caller.request(`/v1/approvals/${approvalId}`),
        404,
        'approval_not_found',
      );
      const decided = await strict.approvals
        .decide(decodeURIComponent(approvalId), { approved: true, decidedBy: 'ops' })
        .catch((error: unknown) => error);
      expect(decided).toBeInstanceOf(ApprovalDecisionError);
      expect((decided as ApprovalDecisionError).code).toBe('approval_not_found');
    }
    await strict.close();
  });

  it('serves under a basePath', async () => {
    const mounted = createTestClient(fixtureGateway({ basePath: '/gateway' }), { token: TOKEN });
    expect((await mounted.request('/gateway/v1/manifest')).status).toBe(200);
    expectEnvelope(await mounted.request('/v1/manifest'), 404, 'not_found');
  });
});
