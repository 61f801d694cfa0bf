import { serve } from '@svc/gateway-kit/node';
import { afterEach, describe, expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import type { CheckReport } from '../src/check/report.ts';
import { referenceGateway, TOKEN } from './fixtures/reference-gateway.ts';
import { IN_PROCESS_URL, inProcess } from './gateways.ts';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

function gateway() {
  const g = referenceGateway();
  closers.push(() => g.close());
  return g;
}

const ids = (report: CheckReport, status: string) =>
  report.checks.filter((c) => c.status === status).map((c) => c.id);

describe('checkGateway against a correct gateway', () => {
  it('passes every check it runs and skips, with why, the write actions and callbacks', async () => {
    const g = gateway();
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(g.fetch),
      pollIntervalMs: 20,
    });
    expect(ids(report, 'failed')).toEqual([]);
    expect(report.ok).toBe(true);
    const skipped = report.checks.filter((c) => c.status === 'skipped');
    expect(skipped.map((c) => c.id)).toEqual([
      'invoke-input-invalid:close-account',
      'invoke-response-shape:close-account',
      'approval-required-shape:close-account',
      'callback-authorization:job-result',
      'callback-authorization:approval',
    ]);
    expect(skipped[0]!.message).toBe(
      'sideEffectLevel is "destructive": not invoked without --allow-writes',
    );
    // Every rule but the callback and approval ones has at least one check that ran and passed.
    const passedRules = new Set(
      report.checks.filter((c) => c.status === 'passed').map((c) => c.rule),
    );
    expect(passedRules.size).toBe(14);
    expect(ids(report, 'passed')).toEqual(
      expect.arrayContaining([
        'invoke-response-shape:find-customer',
        'invoke-input-invalid:build-summary:2',
        'job-resource:build-summary',
        'job-resource:build-summary:final',
        'job-cancel:build-summary',
        'invoke-one-action:two',
      ]),
    );
    expect(report.counts.passed + report.counts.skipped).toBe(report.checks.length);
  });

  it('invokes no action whose sideEffectLevel is not read without allowWrites', async () => {
    const g = gateway();
    const seen: string[] = [];
    await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      pollIntervalMs: 20,
      fetch: inProcess(async (request) => {
        if (request.method === 'POST' && new URL(request.url).pathname === '/v1/invoke') {
          const body = (await request
            .clone()
            .json()
            .catch(() => ({}))) as { action?: { id?: string } };
          if (body.action?.id) seen.push(body.action.id);
        }
        return g.fetch(request);
      }),
    });
    expect(seen).toContain('find-customer');
    expect(seen).not.toContain('close-account');
  });

  it('with allowWrites, checks the approval of an action that requires one', async () => {
    const g = gateway();
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(g.fetch),
      allowWrites: true,
      pollIntervalMs: 20,
    });
    expect(ids(report, 'failed')).toEqual([]);
    expect(ids(report, 'passed')).toContain('approval-required-shape:close-account');
    expect(ids(report, 'skipped')).toEqual([
      'callback-authorization:job-result',
      'callback-authorization:approval',
    ]);
  });

  it('with a callback host, receives the job-result callback with callbacks.authorization verbatim', async () => {
    const g = gateway();
    const server = await serve(g, { port: 0 });
    closers.push(async () => {
      await g.idle();
      await server.close();
    });
    const report = await checkGateway({
      url: server.url,
      token: TOKEN,
      callbackHost: '127.0.0.1',
      only: 'callback-authorization',
      pollIntervalMs: 20,
    });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['callback-authorization:job-result', 'passed'],
      ['callback-authorization:approval', 'skipped'],
    ]);
  });

  it('runs only the checks --only selects', async () => {
    const g = gateway();
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(g.fetch),
      only: ['auth-bearer:invoke', '*:wrong-scheme'],
    });
    expect(report.checks.map((c) => c.id)).toEqual([
      'auth-bearer:manifest:wrong-scheme',
      'auth-bearer:invoke:missing-token',
      'auth-bearer:invoke:wrong-token',
      'auth-bearer:invoke:wrong-scheme',
      'auth-bearer:invoke:empty-token',
      'auth-bearer:job:wrong-scheme',
      'auth-bearer:cancel:wrong-scheme',
    ]);
  });

  it('makes the invoke a selected job check needs, even when --only leaves its own check out', async () => {
    const g = gateway();
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: inProcess(g.fetch),
      only: 'job-*',
      pollIntervalMs: 20,
    });
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['job-resource:build-summary', 'passed'],
      ['job-resource:build-summary:final', 'passed'],
      ['job-cancel:build-summary', 'passed'],
      ['job-unknown:job', 'passed'],
      ['job-unknown:cancel', 'passed'],
    ]);
  });

  it('reports the run incomplete, and no broken rule, when the gateway cannot be reached', async () => {
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      fetch: () => Promise.reject(new TypeError('fetch failed')),
    });
    expect(report.checks).toEqual([
      expect.objectContaining({
        id: 'manifest-shape:manifest',
        status: 'skipped',
        message: expect.stringContaining('could not be reached'),
      }),
    ]);
    expect(report.ok).toBe(false);
    expect(report.incomplete).toContain('the gateway could not be reached');
  });

  it('reports a manifest request that gets no answer within timeoutMs, naming the deadline', async () => {
    const report = await checkGateway({
      url: IN_PROCESS_URL,
      token: TOKEN,
      timeoutMs: 50,
      fetch: (_, init) =>
        new Promise((_, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason)),
        ),
    });
    expect(report.checks[0]?.message).toBe('no answer: no answer within 50 ms');
    expect(report.incomplete).toBe('no answer to GET /v1/manifest: no answer within 50 ms');
  });
});
