import { serve } from '@svc/gateway-kit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import { referenceGateway, TOKEN } from './fixtures/reference-gateway.ts';
import { cli, IN_PROCESS_URL, inProcess } from './gateways.ts';
import { serveHandler } from './serve-handler.ts';

// A checker that cannot authenticate cannot check the contract. A wrong token used to be reported
// as "22 passed, 1 failed, 24 skipped … rules broken: manifest-shape" and exit 1 ("contract
// broken") against a gateway that passes everything with the right token. When the manifest
// request with the token given answers 401 with an error envelope, the run stops: "could not
// run" (exit 2), saying the gateway refused the token, never printing it.

const WRONG = 'wrong-token-never-printed';
const gateway = referenceGateway();
let served: { url: string; close(): Promise<void> };
/** Answers 401 with a text body, not an error envelope, to everything. */
let bareUnauthorized: { url: string; close(): Promise<void> };

beforeAll(async () => {
  served = await serve(gateway, { port: 0 });
  bareUnauthorized = await serveHandler(
    async () =>
      new Response('Unauthorized', { status: 401, headers: { 'content-type': 'text/plain' } }),
  );
});
afterAll(async () => {
  await Promise.all([served.close(), bareUnauthorized.close()]);
  await gateway.close();
});

const REFUSED =
  "GET /v1/manifest answered 401 to the token given; no check can run without a token the gateway accepts — check --token or SVC_GATEWAY_TOKEN (checkGateway's token option)";

describe('a token the gateway refuses', () => {
  it('svc-gateway-check exits 2 ("could not run"), says to check --token, breaks no rule', async () => {
    const run = await cli(['--url', served.url, '--token', WRONG]);
    expect(run.code).toBe(2);
    expect(run.err).toBe(`svc-gateway-check: could not run to the end: ${REFUSED}`);
    expect(run.out).toContain('skip  manifest-shape:manifest');
    expect(run.out).toContain('0 passed, 0 failed, 1 skipped (1 check)');
    expect(run.out).not.toContain('FAIL');
    expect(run.out).not.toContain('rules broken');
    expect(`${run.out}\n${run.err}`).not.toContain(WRONG);
  });

  it('the same with --only selecting checks that do not need the token (not "no check matched")', async () => {
    const run = await cli(['--url', served.url, '--token', WRONG, '--only', 'auth-bearer']);
    expect(run.code).toBe(2);
    expect(run.err).toBe(`svc-gateway-check: could not run to the end: ${REFUSED}`);
  });

  it('checkGateway reports it as it reports an unreachable gateway: incomplete, not ok, no failure', async () => {
    const requests: string[] = [];
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: WRONG,
      fetch: inProcess((request) => {
        requests.push(`${request.method} ${new URL(request.url).pathname}`);
        return gateway.fetch(request);
      }),
    });
    expect(report.ok).toBe(false);
    expect(report.incomplete).toBe(REFUSED);
    expect(report.counts).toEqual({ passed: 0, failed: 0, skipped: 1 });
    expect(report.checks).toEqual([
      expect.objectContaining({
        id: 'manifest-shape:manifest',
        status: 'skipped',
        message: expect.stringContaining('the gateway answered 401 to the token given'),
      }),
    ]);
    expect(JSON.stringify(report)).not.toContain(WRONG);
    // Nothing after the manifest: no invoke with a token the gateway refused.
    expect(requests).toEqual(['GET /v1/manifest']);
  });

  it('the right token still passes against the same gateway', async () => {
    const run = await cli(['--url', served.url, '--token', TOKEN, '--only', 'manifest-shape']);
    expect(run.code).toBe(0);
  });

  it('a 401 that is no error envelope breaks the contract whatever the token: exit 1, rules named', async () => {
    const run = await cli(['--url', bareUnauthorized.url, '--token', WRONG]);
    expect(run.code).toBe(1);
    expect(run.out).toContain('FAIL  manifest-shape:manifest');
    expect(run.out).toContain('FAIL  error-envelope:manifest');
    expect(run.err).toBe('');
  });
});
