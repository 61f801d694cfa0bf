import { afterEach, describe, expect, it } from 'vitest';
import { BROKEN_GATEWAYS } from '../../test/fixtures/broken-gateways.ts';
import {
  buildSummary,
  closeAccount,
  findCustomer,
  referenceGateway,
  TOKEN,
} from '../../test/fixtures/reference-gateway.ts';
import { IN_PROCESS_URL, inProcess } from '../../test/gateways.ts';
import { CheckOptionsError } from '../errors/check-options-error.ts';
import { type GatewayClientError, isGatewayClientError } from '../errors/gateway-client-error.ts';
import { createGatewayClient } from './create-gateway-client.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

function client(options: { token?: string; broken?: string } = {}) {
  const gateway = referenceGateway();
  closers.push(() => gateway.close());
  const broken = BROKEN_GATEWAYS.find((b) => b.name === options.broken);
  const handler = broken ? broken.wrap((r) => gateway.fetch(r)) : (r: Request) => gateway.fetch(r);
  return createGatewayClient({
    url: IN_PROCESS_URL,
    token: options.token ?? TOKEN,
    fetch: inProcess(handler),
  });
}

async function rejection(promise: Promise<unknown>): Promise<GatewayClientError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isGatewayClientError(error))
    throw new Error(`expected a GatewayClientError, got ${String(error)}`);
  return error;
}

describe('createGatewayClient', () => {
  it('reads the manifest', async () => {
    const manifest = await client().manifest();
    expect(manifest.actions.map((a) => a.id)).toEqual([
      'find-customer',
      'build-summary',
      'close-account',
    ]);
  });

  it('invokes a sync action by its definition and answers completed', async () => {
    const outcome = await client().invoke(findCustomer, { customerId: 'cus_123' });
    expect(outcome).toEqual({
      status: 'completed',
      outputText: 'Customer cus_123.',
      data: { customerId: 'cus_123' },
    });
  });

  it('drives an async job to completion', async () => {
    const outcome = await client().invoke(buildSummary, { topic: 'Q3 numbers', pages: 2 });
    if (outcome.status !== 'accepted') throw new Error(`expected accepted, got ${outcome.status}`);
    expect(['queued', 'running']).toContain(outcome.job.status);
    const job = await outcome.handle.wait({ pollIntervalMs: 20 });
    expect(job).toMatchObject({
      jobId: outcome.job.jobId,
      status: 'completed',
      outputText: 'Summary of Q3 numbers.',
    });
  });

  it('cancels a running job', async () => {
    const gatewayClient = client();
    const outcome = await gatewayClient.invoke('build-summary', { topic: 'Q3 numbers', pages: 2 });
    if (outcome.status !== 'accepted') throw new Error(`expected accepted, got ${outcome.status}`);
    const cancelled = await outcome.handle.cancel();
    expect(cancelled.status).toBe('cancelled');
    expect((await gatewayClient.job(outcome.job.jobId).wait({ pollIntervalMs: 20 })).status).toBe(
      'cancelled',
    );
  });

  it('reports an approval and its state', async () => {
    const gatewayClient = client();
    const outcome = await gatewayClient.invoke(closeAccount, { accountId: 'a@example.com' });
    if (outcome.status !== 'approval_required')
      throw new Error(`expected approval_required, got ${outcome.status}`);
    const approval = await gatewayClient.approval(outcome.approval);
    expect(approval).toMatchObject({ approvalId: outcome.approval.approvalId, status: 'pending' });
  });

  it('never sends the token to a statusUrl on another origin', async () => {
    const gateway = referenceGateway();
    closers.push(() => gateway.close());
    const seen: string[] = [];
    const spy = createGatewayClient({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess((request) => {
        seen.push(new URL(request.url).origin);
        return gateway.fetch(request);
      }),
    });
    const outcome = await spy.invoke(closeAccount, { accountId: 'a@example.com' });
    if (outcome.status !== 'approval_required') throw new Error('expected approval_required');
    const { approvalId } = outcome.approval;
    const approval = await spy.approval({
      approvalId,
      statusUrl: `https://elsewhere.example/${approvalId}`,
    });
    expect(approval.status).toBe('pending');
    expect(new Set(seen)).toEqual(new Set([IN_PROCESS_URL]));
  });

  it('rejects an error envelope as a gateway error, without the token in the message', async () => {
    const error = await rejection(client({ token: 'not-the-token' }).manifest());
    expect(error).toMatchObject({ kind: 'gateway', status: 401, error: { code: 'unauthorized' } });
    expect(error.message).not.toContain('not-the-token');
  });

  it('rejects a 422 for an invalid input with the issues of the gateway', async () => {
    const error = await rejection(client().invoke('find-customer', { customerId: 42 }));
    expect(error).toMatchObject({ kind: 'gateway', status: 422, error: { code: 'invalid_input' } });
  });

  it('names the rule a gateway broke', async () => {
    const error = await rejection(
      client({ broken: 'adds a property to invoke outcomes' }).invoke(findCustomer, {
        customerId: 'cus_123',
      }),
    );
    expect(error).toMatchObject({ kind: 'contract', rule: 'invoke-response-shape', status: 200 });
    expect(error.message).toContain('rule invoke-response-shape');
    expect(error.issues.join()).toContain('debug');
  });

  it('names the envelope rule for an error answer without the envelope', async () => {
    const error = await rejection(
      client({ broken: 'answers errors without the envelope', token: 'wrong' }).manifest(),
    );
    expect(error).toMatchObject({ kind: 'contract', rule: 'error-envelope', status: 401 });
  });

  /** A client of the reference gateway whose answers pass through `rewrite` first. */
  function rewritten(rewrite: (request: Request, response: Response) => Promise<Response>) {
    const gateway = referenceGateway();
    closers.push(() => gateway.close());
    return createGatewayClient({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(async (request) => rewrite(request, await gateway.fetch(request))),
    });
  }

  it.each([307, 308])(
    'says a %i is a redirect it did not follow, and where it pointed',
    async (status) => {
      const redirecting = rewritten(
        async () =>
          new Response(null, {
            status,
            headers: { location: 'https://elsewhere.example/v1/manifest' },
          }),
      );
      const error = await rejection(redirecting.manifest());
      expect(error).toMatchObject({ kind: 'contract', rule: 'error-envelope', status });
      expect(error.message).toBe(
        `GET /v1/manifest: the gateway answered a redirect (${status}) to https://elsewhere.example/v1/manifest, which is not followed: the token would go with it (rule error-envelope)`,
      );
    },
  );

  it('rejects a body that is not JSON with a contract error naming the rule, never a SyntaxError', async () => {
    const texting = rewritten(async (request, response) =>
      new URL(request.url).pathname === '/v1/invoke'
        ? new Response('{"status": "completed", <truncated>', {
            status: response.status,
            headers: { 'content-type': 'application/json' },
          })
        : new Response('Bad Gateway', { status: 502, headers: { 'content-type': 'text/html' } }),
    );
    const invoke = await rejection(texting.invoke(findCustomer, { customerId: 'cus_123' }));
    expect(invoke).toMatchObject({ kind: 'contract', rule: 'invoke-response-shape', status: 200 });
    expect(invoke.message).toBe(
      'invoke find-customer: the answer breaks the contract (rule invoke-response-shape): the body is not JSON',
    );
    const manifest = await rejection(texting.manifest());
    expect(manifest).toMatchObject({ kind: 'contract', rule: 'error-envelope', status: 502 });
  });

  it("reads a JSON body whatever its Content-Type (judging the label is the checker's job)", async () => {
    const plain = rewritten(async (_, response) => {
      const headers = new Headers(response.headers);
      headers.set('content-type', 'text/plain');
      return new Response(response.body, { status: response.status, headers });
    });
    expect((await plain.manifest()).actions).toHaveLength(3);
  });

  it('refuses a job resource that is another job than the one asked for', async () => {
    const swapping = rewritten(async (request, response) => {
      if (request.method !== 'GET' || !new URL(request.url).pathname.startsWith('/v1/jobs/'))
        return response;
      const job = (await response.json()) as Record<string, unknown>;
      return Response.json({ ...job, jobId: 'job_someone_else' });
    });
    const outcome = await swapping.invoke(buildSummary, { topic: 'Q3 numbers', pages: 2 });
    if (outcome.status !== 'accepted') throw new Error('expected accepted');
    const error = await rejection(outcome.handle.get());
    expect(error).toMatchObject({ kind: 'contract', rule: 'job-resource', status: 200 });
    expect(error.message).toBe(
      `GET job ${outcome.handle.jobId}: the gateway answered job job_someone_else (rule job-resource)`,
    );
  });

  it('stops waiting for a job when the signal aborts', async () => {
    const gatewayClient = client();
    const outcome = await gatewayClient.invoke(buildSummary, { topic: 'Q3 numbers', pages: 2 });
    if (outcome.status !== 'accepted') throw new Error('expected accepted');
    const controller = new AbortController();
    const waiting = outcome.handle.wait({ signal: controller.signal, pollIntervalMs: 1_000 });
    controller.abort();
    expect((await rejection(waiting)).kind).toBe('aborted');
    await outcome.handle.cancel();
  });

  it('gives up waiting after timeoutMs', async () => {
    const outcome = await client().invoke(buildSummary, { topic: 'Q3 numbers', pages: 2 });
    if (outcome.status !== 'accepted') throw new Error('expected accepted');
    const error = await rejection(outcome.handle.wait({ pollIntervalMs: 20, timeoutMs: 40 }));
    expect(error.kind).toBe('timeout');
    await outcome.handle.cancel();
  });
});

// What a careless user or a hostile configuration passes: a CheckOptionsError naming the option,
// before any request (`0` or `NaN` failed every request, a longer timer than 2^31-1 ms fired at
// once, and `wait` with `NaN` polled in a busy loop and never timed out).
describe('client options', () => {
  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 53, '10000', null])(
    'createGatewayClient refuses timeoutMs = %j, naming it',
    (timeoutMs) => {
      expect(() =>
        createGatewayClient({ url: IN_PROCESS_URL, token: TOKEN, timeoutMs: timeoutMs as 1 }),
      ).toThrow(CheckOptionsError);
      expect(() =>
        createGatewayClient({ url: IN_PROCESS_URL, token: TOKEN, timeoutMs: timeoutMs as 1 }),
      ).toThrow(/^createGatewayClient: timeoutMs is /);
    },
  );

  it('refuses a url with credentials, without repeating them', () => {
    const refusal = (() => {
      try {
        createGatewayClient({ url: 'https://user:GwSecret-123@gateway.example', token: TOKEN });
      } catch (error) {
        return error as Error;
      }
      throw new Error('expected a refusal');
    })();
    expect(refusal).toBeInstanceOf(CheckOptionsError);
    expect(refusal.message).toBe(
      'createGatewayClient: url is a string: expected a URL without credentials (the token goes in token).',
    );
  });

  it('takes timeoutMs from 1 ms to the longest timer', async () => {
    const gateway = referenceGateway();
    closers.push(() => gateway.close());
    const fetch = inProcess((r) => gateway.fetch(r));
    for (const timeoutMs of [1_000, 2 ** 31 - 1]) {
      const manifest = await createGatewayClient({
        url: IN_PROCESS_URL,
        token: TOKEN,
        fetch,
        timeoutMs,
      }).manifest();
      expect(manifest.actions.length).toBe(3);
    }
    expect(() =>
      createGatewayClient({ url: IN_PROCESS_URL, token: TOKEN, timeoutMs: 1 }),
    ).not.toThrow();
  });

  it.each(
    ['pollIntervalMs', 'timeoutMs'].flatMap((option) =>
      [-1, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 2 ** 53, '500', null].map(
        (value) => [option, value] as const,
      ),
    ),
  )('JobHandle.wait refuses %s = %j, naming it, before polling', async (option, value) => {
    let requests = 0;
    const handle = createGatewayClient({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: () => {
        requests += 1;
        return Promise.reject(new Error('no request expected'));
      },
    }).job('job_1');
    const error = await handle.wait({ [option]: value } as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CheckOptionsError);
    expect((error as Error).message).toMatch(new RegExp(`^JobHandle.wait: ${option} is `));
    expect(requests).toBe(0);
  });

  it('JobHandle.wait keeps 0: one look (timeoutMs) and the 10 ms floor (pollIntervalMs)', async () => {
    const outcome = await client().invoke(buildSummary, { topic: 'Q3 numbers', pages: 2 });
    if (outcome.status !== 'accepted') throw new Error('expected accepted');
    const error = await rejection(outcome.handle.wait({ pollIntervalMs: 0, timeoutMs: 0 }));
    expect(error.kind).toBe('timeout');
    await outcome.handle.cancel();
  });
});
