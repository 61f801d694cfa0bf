import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { CheckReport } from '@svc/gateway-check';
import { createGatewayClient } from '@svc/gateway-check/client';
import { expect, it } from 'vitest';

const BIN = join(
  dirname(fileURLToPath(import.meta.resolve('@svc/gateway-check/package.json'))),
  'dist/bin.js',
);

/** Checks of each started example with `@svc/gateway-check`: its bin, and its typed client. */
export function gatewayCheckTests(server: () => { readonly url: string }, token: string): void {
  it('passes every check of the svc-gateway-check bin (read actions only), in under 30 s', async () => {
    const { url } = server();
    const started = Date.now();
    const run = await promisify(execFile)(
      process.execPath,
      [BIN, '--url', url, '--json', '--callback-host', '127.0.0.1'],
      { env: { ...process.env, SVC_GATEWAY_TOKEN: token }, timeout: 30_000 },
    );
    expect(Date.now() - started).toBeLessThan(30_000);
    const report = JSON.parse(run.stdout) as CheckReport;
    expect(report.checks.filter((c) => c.status === 'failed')).toEqual([]);
    // issue-refund is destructive: never invoked without --allow-writes, and said so.
    expect(
      report.checks.filter((c) => c.status === 'skipped').map((c) => [c.id, c.message]),
    ).toEqual([
      [
        'invoke-input-invalid:issue-refund',
        'sideEffectLevel is "destructive": not invoked without --allow-writes',
      ],
      [
        'invoke-response-shape:issue-refund',
        'sideEffectLevel is "destructive": not invoked without --allow-writes',
      ],
      [
        'approval-required-shape:issue-refund',
        'sideEffectLevel is "destructive": not invoked without --allow-writes',
      ],
      ['callback-authorization:approval', expect.stringContaining('no way to decide an approval')],
    ]);
    expect(report.checks.map((c) => c.id)).toEqual(
      expect.arrayContaining(['job-cancel:generate-report', 'callback-authorization:job-result']),
    );
  }, 40_000);

  it('drives an async job to completion and a cancel with the typed client', async () => {
    const client = createGatewayClient({ url: server().url, token });
    const quick = await client.invoke('generate-report', { topic: 'e2e', delayMs: 30 });
    if (quick.status !== 'accepted') throw new Error(`expected accepted, got ${quick.status}`);
    const done = await quick.handle.wait({ pollIntervalMs: 25, timeoutMs: 15_000 });
    expect(done).toMatchObject({ status: 'completed', outputText: expect.stringContaining('e2e') });

    const slow = await client.invoke('generate-report', { topic: 'e2e', delayMs: 60_000 });
    if (slow.status !== 'accepted') throw new Error(`expected accepted, got ${slow.status}`);
    expect(['queued', 'running', 'cancelled']).toContain((await slow.handle.cancel()).status);
    const cancelled = await slow.handle.wait({ pollIntervalMs: 25, timeoutMs: 15_000 });
    expect(cancelled.status).toBe('cancelled');
  });
}
