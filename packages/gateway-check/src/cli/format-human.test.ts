import { describe, expect, it } from 'vitest';
import type { CheckReport, CheckResult } from '../check/report.ts';
import { formatCheck, formatSummary } from './format-human.ts';

function reportOf(checks: readonly CheckResult[]): CheckReport {
  const count = (status: CheckResult['status']): number =>
    checks.filter((c) => c.status === status).length;
  return {
    url: 'http://127.0.0.1:8787',
    startedAt: new Date(Date.now()).toISOString(),
    durationMs: 1234,
    counts: { passed: count('passed'), failed: count('failed'), skipped: count('skipped') },
    ok: count('failed') === 0,
    checks,
  };
}

const passed: CheckResult = {
  id: 'auth-bearer:invoke:wrong-token',
  rule: 'auth-bearer',
  title: 'A wrong token is refused',
  status: 'passed',
  durationMs: 3,
};

describe('formatSummary', () => {
  it('says "1 check" for a run of one check', () => {
    expect(formatSummary(reportOf([passed]))).toBe(
      'svc-gateway-check: 1 passed, 0 failed, 0 skipped (1 check) in 1.2 s — http://127.0.0.1:8787',
    );
  });

  it('says "checks" for any other count', () => {
    expect(formatSummary(reportOf([passed, passed]))).toContain('(2 checks) in 1.2 s');
    expect(formatSummary(reportOf([]))).toContain('(0 checks) in 1.2 s');
  });
});

describe('formatCheck', () => {
  it("shows the gateway's control characters escaped, so they cannot forge or hide a line", () => {
    const forged = 'x\u001b[1A\u001b[2K\rpass  looks fine\n\u202e';
    const text = formatCheck({
      id: `invoke-response-shape:${forged}`,
      rule: 'invoke-response-shape',
      title: `a valid invoke of ${forged} answers 200`,
      status: 'failed',
      message: `answered 500 ${forged}, expected 200`,
      durationMs: 1,
    });
    const controls = [...text].filter((c) => c !== '\n' && (c < ' ' || c === '\u202e'));
    expect(controls).toEqual([]);
    expect(text.split('\n')).toHaveLength(2);
    expect(text).toContain('x\\u{1b}[1A\\u{1b}[2K\\u{d}pass  looks fine\\u{a}\\u{202e}');
  });
});
