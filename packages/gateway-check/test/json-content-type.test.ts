import { serve } from '@svc/gateway-kit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import type { Handler } from './fixtures/broken-gateways.ts';
import { referenceGateway, TOKEN } from './fixtures/reference-gateway.ts';
import { cli, IN_PROCESS_URL, inProcess } from './gateways.ts';
import { serveHandler } from './serve-handler.ts';

// Every answer the checker reads as JSON (the manifest, invoke outcomes, jobs, error envelopes)
// must say so: `Content-Type: application/json`. A gateway answering them as text/plain, or with
// no Content-Type, breaks a client that dispatches on the media type, yet used to pass every check.

const gateway = referenceGateway();
let served: { url: string; close(): Promise<void> };
/** The reference gateway over HTTP, with every answer relabelled text/plain. */
let plain: { url: string; close(): Promise<void> };

/** `handler`, with the Content-Type of answers `when` selects set to `contentType` (or removed). */
const relabel =
  (contentType: string | null, when: (request: Request) => boolean = () => true): Handler =>
  async (request) => {
    const response = await gateway.fetch(request);
    if (!when(request)) return response;
    const headers = new Headers(response.headers);
    if (contentType === null) headers.delete('content-type');
    else headers.set('content-type', contentType);
    // A body without a type would get text/plain from `new Response`: give it bytes.
    const body = new Uint8Array(await response.arrayBuffer());
    return new Response(body, { status: response.status, headers });
  };

beforeAll(async () => {
  served = await serve(gateway, { port: 0 });
  plain = await serveHandler(relabel('text/plain; charset=utf-8'));
});
afterAll(async () => {
  await Promise.all([served.close(), plain.close()]);
  await gateway.close();
});

describe('the Content-Type of JSON answers', () => {
  it('svc-gateway-check fails a gateway answering its JSON as text/plain, naming the route and the type', async () => {
    const run = await cli(['--url', plain.url, '--token', TOKEN, '--only', 'json-content-type']);
    expect(run.code).toBe(1);
    expect(run.out).toContain(
      'FAIL  json-content-type:manifest  every JSON answer of GET /v1/manifest has Content-Type application/json\n' +
        '      1 of 1 JSON answers are not labelled application/json: GET /v1/manifest → 200 with Content-Type "text/plain; charset=utf-8"',
    );
    expect(run.out).toContain('rules broken: json-content-type');
  });

  it('fails every route whose JSON answers (outcomes, jobs, envelopes) are mislabelled, and no other rule', async () => {
    const report = await checkGateway({ url: plain.url, token: TOKEN, pollIntervalMs: 20 });
    const failed = report.checks.filter((c) => c.status === 'failed');
    expect(failed.map((c) => c.id)).toEqual([
      'json-content-type:manifest',
      'json-content-type:invoke',
      'json-content-type:job',
      'json-content-type:cancel',
    ]);
    // The envelopes of the 401 probes come first on POST /v1/invoke; the rest are counted.
    expect(failed[1]!.message).toMatch(
      /^\d+ of \d+ JSON answers are not labelled application\/json: POST \/v1\/invoke without an Authorization header → 401 with Content-Type "text\/plain; charset=utf-8"; .+; and \d+ more$/,
    );
  });

  it('says "no Content-Type" for an answer without one, on the route that sent it only', async () => {
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(
        relabel(
          null,
          (request) =>
            new URL(request.url).pathname.endsWith('/cancel') && request.method === 'POST',
        ),
      ),
      only: ['json-content-type', 'job-cancel'],
      pollIntervalMs: 20,
    });
    const cancel = report.checks.find((c) => c.id === 'json-content-type:cancel');
    expect(cancel).toMatchObject({ status: 'failed' });
    expect(cancel!.message).toContain('→ 200 with no Content-Type');
    // The cancel answer itself is read (its body is JSON): only the media-type check fails.
    expect(report.checks.filter((c) => c.status === 'failed').map((c) => c.id)).toEqual([
      'json-content-type:cancel',
    ]);
  });

  it('passes the kit over HTTP (application/json; charset=utf-8 and parameters are fine)', async () => {
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(relabel('Application/JSON ; charset=UTF-8')),
      only: 'json-content-type',
    });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['json-content-type:manifest', 'passed'],
      ['json-content-type:invoke', 'skipped'],
      ['json-content-type:job', 'skipped'],
      ['json-content-type:cancel', 'skipped'],
    ]);
    const real = await checkGateway({ url: served.url, token: TOKEN, pollIntervalMs: 20 });
    expect(real.checks.filter((c) => c.rule === 'json-content-type').map((c) => c.status)).toEqual([
      'passed',
      'passed',
      'passed',
      'passed',
    ]);
  });

  it("judges only answers with a JSON body: a text 401 is the error-envelope rule's failure", async () => {
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(async (request) =>
        request.headers.get('authorization') === `Bearer ${TOKEN}`
          ? gateway.fetch(request)
          : new Response('Unauthorized', {
              status: 401,
              headers: { 'content-type': 'text/plain' },
            }),
      ),
      only: ['auth-bearer:manifest', 'error-envelope:manifest', 'json-content-type:manifest'],
    });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['auth-bearer:manifest:missing-token', 'passed'],
      ['auth-bearer:manifest:wrong-token', 'passed'],
      ['auth-bearer:manifest:wrong-scheme', 'passed'],
      ['auth-bearer:manifest:empty-token', 'passed'],
      ['error-envelope:manifest', 'failed'],
      ['json-content-type:manifest', 'passed'],
    ]);
  });
});
