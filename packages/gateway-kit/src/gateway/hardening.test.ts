import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as v from 'valibot';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TOKEN as ASYNC_TOKEN, asyncGateway, probe } from '../../test/async-fixture.ts';
import { fixtureGateway, TOKEN } from '../../test/fixture-gateway.ts';
import { ActionRejection, isActionRejection, reject } from '../actions/action-rejection.ts';
import { defineAction } from '../actions/define-action.ts';
import { toNodeHandler } from '../adapters/node/to-node-handler.ts';
import { GatewayConfigError } from '../runtime/gateway-config-error.ts';
import { JobStoreFullError } from '../store/job-store-full-error.ts';
import { MemoryJobStore } from '../store/memory-job-store.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import { createGateway } from './create-gateway.ts';

const client = createTestClient(fixtureGateway(), { token: TOKEN });

afterEach(() => {
  vi.useRealTimers();
});

describe('deadlineAt is an RFC 3339 instant', () => {
  it.each([
    '2099-01-01T10:00:00+01',
    '2099-01-01T10:00:00 +01:00',
    '2099-01-01 10:00:00Z',
    '2099-13-01T10:00:00Z',
    // Dates that Date.parse would roll over into the next month or day.
    '2099-02-30T10:00:00Z',
    '2099-04-31T10:00:00Z',
    '2097-02-29T10:00:00Z',
    '2100-02-29T10:00:00Z',
    '2099-01-01T24:00:00Z',
    '2099-06-30T23:59:60Z',
    '2099-01-01T10:00:00+24:00',
  ])('refuses %s with 422 instead of treating it as already past', async (deadlineAt) => {
    const response = await client.invoke(
      invokeBody('lookup-account', { accountId: 'a' }, { deadlineAt }),
    );
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      error: { code: 'invalid_request', details: { issues: [{ path: 'deadlineAt' }] } },
    });
  });

  it('accepts lower-case t and z, offsets and leap days, and honours them', async () => {
    for (const deadlineAt of [
      '2099-01-01t10:00:00z',
      '2099-01-01T10:00:00.123+02:00',
      '2096-02-29T23:59:59-23:59',
      '2400-02-29T00:00:00Z',
    ]) {
      const response = await client.invoke(
        invokeBody('lookup-account', { accountId: 'a' }, { deadlineAt }),
      );
      expect(response.body).toMatchObject({ status: 'completed' });
    }
  });

  it('accepts empty identifiers, which the contract allows', async () => {
    const response = await client.invoke(
      invokeBody(
        'lookup-account',
        { accountId: 'a' },
        { invocationId: '', meeting: { id: '' }, session: { id: '' } },
      ),
    );
    expect(response.body).toMatchObject({ status: 'completed' });
  });
});

describe('charset and Content-Encoding are not interpreted (docs/decisions.md)', () => {
  const body = JSON.stringify(invokeBody('lookup-account', { accountId: 'a' }));
  const post = (headers: Record<string, string>, sent: BodyInit = body) =>
    client.request('/v1/invoke', { method: 'POST', headers, body: sent });

  it('reads a body labelled with another charset as UTF-8', async () => {
    const response = await post({ 'content-type': 'application/json; charset=iso-8859-1' });
    expect(response.body).toMatchObject({ status: 'completed' });
  });

  it('reads the bytes as sent: a plain body labelled gzip is served, a compressed one is malformed JSON', async () => {
    const labelled = await post({ 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(labelled.body).toMatchObject({ status: 'completed' });
    const compressed = new Blob([body]).stream().pipeThrough(new CompressionStream('gzip'));
    const gzipped = await new Response(compressed).arrayBuffer();
    const refused = await post(
      { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      gzipped,
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: { code: 'malformed_json' } });
  });
});

describe('callbacks.authorization', () => {
  it('refuses a credential with control characters at invoke time (it becomes a header)', async () => {
    const response = await client.invoke(
      invokeBody(
        'lookup-account',
        { accountId: 'a' },
        { callbacks: { authorization: 'Bearer x\r\nX-Evil: 1' } },
      ),
    );
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({
      error: { details: { issues: [{ path: 'callbacks.authorization' }] } },
    });
    expect(JSON.stringify(response.body)).not.toContain('X-Evil');
  });
});

describe('configuration limits', () => {
  it('refuses a timeoutMs a timer cannot hold', () => {
    const tooLong = defineAction({
      id: 'slow',
      input: v.object({}),
      timeoutMs: 30 * 24 * 3600 * 1000,
      run: () => ({}),
    });
    expect(() =>
      createGateway({
        gateway: { id: 'g', name: 'G' },
        actions: [tooLong],
        auth: { tokens: ['t'] },
      }),
    ).toThrow(GatewayConfigError);
  });
});

describe('reject()', () => {
  it('refuses a refusal that would break the rejected shape', () => {
    expect(() => reject({ code: 42, message: 'x' } as never)).toThrow(TypeError);
    expect(() => reject({ code: 'c', message: 'm', details: [] as never })).toThrow(TypeError);
    expect(() => reject({ code: 'c', message: 'm', retryable: 'yes' as never })).toThrow(TypeError);
  });

  it('is recognised across package copies by name', () => {
    const foreign = Object.assign(new Error('no'), {
      name: 'ActionRejection',
      error: { code: 'c', message: 'no', retryable: false },
    });
    expect(isActionRejection(foreign)).toBe(true);
    expect(isActionRejection(new ActionRejection({ code: 'c', message: 'm' }))).toBe(true);
    expect(isActionRejection(new Error('plain'))).toBe(false);
  });
});

describe('bounded hooks', () => {
  it('answers a precheck that never settles with a retryable deadline_exceeded', async () => {
    const hanging = defineAction({
      id: 'hanging-precheck',
      input: v.object({}),
      executionMode: 'async',
      timeoutMs: 50,
      precheck: () => new Promise<undefined>(() => {}),
      run: () => ({}),
    });
    const gateway = fixtureGateway({ actions: [hanging] });
    const response = await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('hanging-precheck', {}),
    );
    expect(response.body).toMatchObject({
      status: 'rejected',
      error: { code: 'deadline_exceeded', retryable: true },
    });
  });

  it("aborts a late precheck's signal with a TimeoutError when its budget runs out", async () => {
    let aborted: unknown;
    const slow = defineAction({
      id: 'slow-precheck',
      input: v.object({}),
      timeoutMs: 50,
      precheck: (_input, { signal }) =>
        new Promise<undefined>((resolve) => {
          signal.addEventListener('abort', () => {
            aborted = signal.reason;
            resolve(undefined);
          });
        }),
      run: () => ({}),
    });
    const gateway = fixtureGateway({ actions: [slow] });
    const response = await createTestClient(gateway, { token: TOKEN }).invoke(
      invokeBody('slow-precheck', {}),
    );
    expect(response.body).toMatchObject({
      status: 'rejected',
      error: { code: 'deadline_exceeded' },
    });
    expect(aborted).toMatchObject({ name: 'TimeoutError' });
  });

  it('asks for approval when the approval policy does not answer in time', async () => {
    const timed = defineAction({
      id: 'quick',
      input: v.object({}),
      timeoutMs: 50,
      run: () => ({}),
    });
    const withQuick = asyncGateway({
      actions: [timed],
      approvals: { policy: () => new Promise<boolean>(() => {}) },
    });
    const response = await createTestClient(withQuick, { token: ASYNC_TOKEN }).invoke(
      invokeBody('quick', {}),
    );
    expect(response.body).toMatchObject({ status: 'approval_required' });
    await withQuick.close();
  });

  it('answers 503 when auth.verify does not answer within 10 s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const gateway = fixtureGateway({ auth: { verify: () => new Promise(() => {}) } });
    const pending = createTestClient(gateway, { token: 'any' }).manifest();
    await vi.advanceTimersByTimeAsync(10_001);
    const response = await pending;
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: { code: 'unavailable', retryable: true } });
  });

  it('answers 500, not 503, when auth.verify throws an error that calls itself retryable', async () => {
    const gateway = fixtureGateway({
      auth: {
        verify: () => {
          throw Object.assign(new Error('idp down'), { retryable: true });
        },
      },
    });
    const response = await createTestClient(gateway, { token: 'any' }).manifest();
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({
      error: { code: 'internal_error', message: 'The gateway failed unexpectedly.' },
    });
  });
});

describe('a store that cannot be reached', () => {
  it('answers 503 unavailable and logs nothing per request (the store reports its outage once)', async () => {
    const outage = Object.assign(new Error('Redis is down'), { name: 'StoreUnavailableError' });
    const jobStore = new MemoryJobStore();
    jobStore.get = () => Promise.reject(outage);
    const logged: unknown[] = [];
    const log = (...args: unknown[]) => void logged.push(args);
    const gateway = asyncGateway({ jobStore, logger: { error: log, warn: log } });
    const response = await createTestClient(gateway, { token: ASYNC_TOKEN }).job('job_1');
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ error: { code: 'unavailable', retryable: true } });
    expect(logged).toEqual([]);
    await gateway.close();
  });
});

describe('values a store cannot hold', () => {
  it('stores JSON of a job result: functions drop out, the job completes', async () => {
    const odd = defineAction({
      id: 'odd-data',
      executionMode: 'async',
      input: v.object({}),
      run: () => ({ outputText: 'done', data: { keep: 1, drop: () => 1 } as never }),
    });
    const gateway = asyncGateway({ actions: [odd] });
    const local = createTestClient(gateway, { token: ASYNC_TOKEN });
    const { body } = await local.invoke(invokeBody('odd-data', {}));
    await gateway.idle();
    const job = await local.job((body as { job: { jobId: string } }).job.jobId);
    expect(job.body).toMatchObject({ status: 'completed', data: { keep: 1 } });
    await gateway.close();
  });

  it('fails a job (and a sync invoke) whose data is not a plain object', async () => {
    const dated = defineAction({
      id: 'dated',
      executionMode: 'async',
      input: v.object({}),
      run: () => ({ data: new Date() as never }),
    });
    const syncDated = defineAction({
      id: 'sync-dated',
      input: v.object({}),
      run: () => ({ data: new Date() as never }),
    });
    const gateway = asyncGateway({ actions: [dated, syncDated] });
    const local = createTestClient(gateway, { token: ASYNC_TOKEN });
    const { body } = await local.invoke(invokeBody('dated', {}));
    await gateway.idle();
    expect((await local.job((body as { job: { jobId: string } }).job.jobId)).body).toMatchObject({
      status: 'failed',
      error: { code: 'internal_error' },
    });
    expect((await local.invoke(invokeBody('sync-dated', {}))).status).toBe(500);
    await gateway.close();
  });

  it('keeps a principal with methods out of the record store (approvals still work)', async () => {
    const gateway = asyncGateway({
      auth: { verify: () => ({ id: 'ops', can: () => true }) },
    });
    const response = await createTestClient(gateway, { token: 'any' }).invoke(
      invokeBody('issue-refund', { orderId: 'o1', amountCents: 100 }),
    );
    expect(response.body).toMatchObject({ status: 'approval_required' });
    await gateway.close();
  });
});

describe('approval decided while the job store is full', () => {
  it('goes back to pending, so it can be decided again once there is room', async () => {
    probe.runs = 0;
    const store = new MemoryJobStore({ maxJobs: 1 });
    const gateway = asyncGateway({ jobStore: store });
    const local = createTestClient(gateway, { token: ASYNC_TOKEN });
    // Fill the store with a running job.
    await local.invoke(invokeBody('generate-report', { topic: 'x', mode: 'wait' }));
    const { body } = await local.invoke(
      invokeBody('issue-refund', { orderId: 'o1', amountCents: 100 }),
    );
    const approvalId = (body as { approval: { approvalId: string } }).approval.approvalId;
    await expect(
      gateway.approvals.decide(approvalId, { approved: true, decidedBy: 'ops' }),
    ).rejects.toBeInstanceOf(JobStoreFullError);
    expect((await gateway.approvals.get(approvalId))?.status).toBe('pending');
    probe.release?.();
    await gateway.idle();
    const decided = await gateway.approvals.decide(approvalId, {
      approved: true,
      decidedBy: 'ops',
    });
    expect(decided.approval.status).toBe('approved');
    await gateway.idle();
    await gateway.close();
  });
});

describe('node adapter and fetch agree', () => {
  async function withServer(run: (port: number) => Promise<void>) {
    // Any Host reaches the gateway here: the loopback Host check (loopback-host.test.ts) would
    // refuse the malformed ones before the URL builder sees them.
    const server = createServer(
      toNodeHandler(fixtureGateway({ gateway: { id: 'g', name: 'G' } }), { allowedHosts: true }),
    ).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      await run((server.address() as AddressInfo).port);
    } finally {
      server.close();
    }
  }
  function raw(
    port: number,
    path: string,
    headers: string[],
  ): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        { port, path, method: 'GET', headers: headers as never, setHost: false },
        (res) => {
          let body = '';
          res.on('data', (chunk) => {
            body += chunk;
          });
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });
  }

  it('refuses two Authorization headers, as fetch does', async () => {
    await withServer(async (port) => {
      const twice = await raw(port, '/v1/manifest', [
        'Host',
        'localhost',
        'Authorization',
        `Bearer ${TOKEN}`,
        'Authorization',
        'Bearer other',
      ]);
      expect(twice.status).toBe(401);
      const once = await raw(port, '/v1/manifest', [
        'Host',
        'localhost',
        'Authorization',
        `Bearer ${TOKEN}`,
      ]);
      expect(once.status).toBe(200);
    });
  });

  it('normalises dot segments in the path, as fetch does', async () => {
    await withServer(async (port) => {
      const dotted = await raw(port, '/v1/./x/../manifest', [
        'Host',
        'localhost',
        'Authorization',
        `Bearer ${TOKEN}`,
      ]);
      expect(dotted.status).toBe(200);
    });
  });

  it('never builds URLs from a Host header that is not a host', async () => {
    await withServer(async (port) => {
      for (const host of ['a b', 'evil.example:1/x?y', 'x"><script>']) {
        const response = await raw(port, '/v1/manifest', [
          'Host',
          host,
          'Authorization',
          `Bearer ${TOKEN}`,
        ]);
        expect(JSON.parse(response.body).gateway.url).toBe('http://localhost');
      }
    });
  });
});

describe('logging', () => {
  it('does not log a cancelled job as a failed action', async () => {
    const errors: unknown[] = [];
    const throwing = defineAction({
      id: 'throws-on-abort',
      executionMode: 'async',
      input: v.object({}),
      run: (_, { signal }) =>
        new Promise((_resolve, rejectRun) =>
          signal.addEventListener('abort', () => rejectRun(signal.reason)),
        ),
    });
    const withThrowing = asyncGateway({
      actions: [throwing],
      logger: { error: (message) => errors.push(message), warn: () => {} },
    });
    const other = createTestClient(withThrowing, { token: ASYNC_TOKEN });
    const { body } = await other.invoke(invokeBody('throws-on-abort', {}));
    const { jobId } = (body as { job: { jobId: string } }).job;
    await expect
      .poll(async () => ((await other.job(jobId)).body as { status: string }).status)
      .toBe('running');
    await other.cancel(jobId);
    await withThrowing.idle();
    expect(errors).toEqual([]);
    await withThrowing.close();
  });
});
