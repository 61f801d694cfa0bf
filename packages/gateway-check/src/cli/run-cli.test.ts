import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serve } from '@svc/gateway-kit/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROKEN_GATEWAYS } from '../../test/fixtures/broken-gateways.ts';
import { referenceGateway, TOKEN } from '../../test/fixtures/reference-gateway.ts';
import { serveHandler } from '../../test/serve-handler.ts';
import type { CheckReport } from '../check/report.ts';
import { runCli } from './run-cli.ts';

const BIN = fileURLToPath(new URL('../../dist/bin.js', import.meta.url));
const gateway = referenceGateway();
const brokenGateway = referenceGateway();
const broken = BROKEN_GATEWAYS.find((b) => b.rule === 'invoke-request-strict')!;
let good: { url: string; close(): Promise<void> };
let bad: { url: string; close(): Promise<void> };
const scratch = mkdtempSync(join(tmpdir(), 'gateway-check-cli-'));

beforeAll(async () => {
  good = await serve(gateway, { port: 0 });
  const wrapped = broken.wrap((request) => brokenGateway.fetch(request));
  bad = await serveHandler(wrapped);
});
afterAll(async () => {
  await Promise.all([good.close(), bad.close()]);
  await Promise.all([gateway.close(), brokenGateway.close()]);
  rmSync(scratch, { recursive: true, force: true });
});

async function cli(argv: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const files = new Map<string, string>();
  const code = await runCli(argv, {
    out: (text) => out.push(text),
    err: (text) => err.push(text),
    env,
    writeFile: async (path, text) => {
      files.set(path, text);
    },
  });
  return { code, out: out.join('\n'), err: err.join('\n'), files };
}

describe('svc-gateway-check', () => {
  it('exits 0 against a correct gateway, with a summary line and no token in the output', async () => {
    const run = await cli(['--url', good.url, '--token', TOKEN]);
    expect(run.code).toBe(0);
    expect(run.out).toMatch(
      /svc-gateway-check: \d+ passed, 0 failed, 5 skipped \(\d+ checks\) in [\d.]+ s/,
    );
    expect(run.out).toContain(
      'sideEffectLevel is "destructive": not invoked without --allow-writes',
    );
    expect(run.out).not.toContain(TOKEN);
  });

  it('exits 1 against a broken gateway and names the broken rule', async () => {
    const run = await cli(['--url', bad.url, '--only', 'invoke-request-strict,manifest-shape'], {
      SVC_GATEWAY_TOKEN: TOKEN,
    });
    expect(run.code).toBe(1);
    expect(run.out).toContain('FAIL  invoke-request-strict:meeting');
    expect(run.out).toContain(
      'answered 200 completed, expected 422 [rule invoke-request-strict: Invoke request; Endpoints A rule 2]',
    );
    expect(run.out).toContain('1 passed, 5 failed, 0 skipped (6 checks)');
    expect(run.out).toContain('rules broken: invoke-request-strict');
  });

  it('prints the report as JSON and writes JUnit XML', async () => {
    const run = await cli([
      '--url',
      bad.url,
      '--token',
      TOKEN,
      '--only',
      'invoke-request-strict:top-level',
      '--json',
      '--junit',
      'report.xml',
    ]);
    const report = JSON.parse(run.out) as CheckReport;
    expect(report.counts).toEqual({ passed: 0, failed: 1, skipped: 0 });
    expect(report.checks[0]).toMatchObject({
      id: 'invoke-request-strict:top-level',
      rule: 'invoke-request-strict',
      status: 'failed',
    });
    const xml = run.files.get('report.xml')!;
    expect(xml).toContain(
      '<testsuite name="invoke-request-strict" tests="1" failures="1" errors="0" skipped="0"',
    );
    expect(xml).toContain('<failure message="answered 200 completed, expected 422"');
  });

  it('exits 1 on a skip only with --fail-on-skip', async () => {
    const argv = ['--url', good.url, '--token', TOKEN, '--only', 'callback-authorization'];
    expect((await cli(argv)).code).toBe(0);
    expect((await cli([...argv, '--fail-on-skip'])).code).toBe(1);
  });

  it.each([
    [[], 'svc-gateway-check: --url is undefined: expected an absolute http(s) URL.'],
    [
      ['--url', 'ftp://x'],
      'svc-gateway-check: --url is a string: expected an absolute http(s) URL.',
    ],
    [
      ['--url', 'http://user:GwSecret-123@x', '--token', 't'],
      'svc-gateway-check: --url is a string: expected a URL without credentials (the token goes in --token).',
    ],
    [
      ['--url', 'https://gw.example/base?key=GwSecret-123', '--token', 't'],
      'svc-gateway-check: --url is a string: expected a URL without a query or fragment (routes are paths under it).',
    ],
    [
      ['--url', 'http://x'],
      'svc-gateway-check: --token is undefined: is an environment variable unset? (expected --token or SVC_GATEWAY_TOKEN)',
    ],
    [
      ['--url', 'http://x', '--token', 't', '--timeout', '0'],
      'svc-gateway-check: --timeout is the number 0: expected a whole number of milliseconds',
    ],
    [['--url', 'http://x', '--token', 't', '--bogus'], "Unknown option '--bogus'"],
  ])('exits 2 on a usage error: %j', async (argv, message) => {
    const run = await cli(argv);
    expect(run.code).toBe(2);
    expect(run.err).toContain(message);
    expect(run.err).toContain('Usage: svc-gateway-check');
  });

  it('exits 2 when --only selects nothing', async () => {
    const run = await cli(['--url', good.url, '--token', TOKEN, '--only', 'no-such-rule']);
    expect(run.code).toBe(2);
    expect(run.err).toContain('No check matched --only');
  });

  it('runs as a bin: exit code and JUnit file', async () => {
    const junit = join(scratch, 'junit.xml');
    const exec = promisify(execFile);
    const ok = await exec(
      process.execPath,
      [BIN, '--url', good.url, '--only', 'auth-bearer', '--junit', junit],
      {
        env: { ...process.env, SVC_GATEWAY_TOKEN: TOKEN },
      },
    );
    expect(ok.stdout).toContain('16 passed, 0 failed, 0 skipped (16 checks)');
    expect(readFileSync(junit, 'utf8')).toContain('tests="16" failures="0"');
    const failed = await exec(process.execPath, [
      BIN,
      '--url',
      bad.url,
      '--token',
      TOKEN,
      '--only',
      'invoke-request-strict',
    ]).catch((error: { code: number; stdout: string }) => error);
    expect('code' in failed && failed.code).toBe(1);
  });
});
