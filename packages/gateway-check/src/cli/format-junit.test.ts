import { describe, expect, it } from 'vitest';
import type { CheckReport } from '../check/report.ts';
import { formatJUnit } from './format-junit.ts';

function reportWith(message: string): CheckReport {
  return {
    url: 'http://127.0.0.1:8787',
    startedAt: new Date(Date.now()).toISOString(),
    durationMs: 5,
    counts: { passed: 0, failed: 1, skipped: 0 },
    ok: false,
    checks: [
      {
        id: 'invoke-response-shape:lookup',
        rule: 'invoke-response-shape',
        title: 'a valid invoke answers 200',
        status: 'failed',
        message,
        durationMs: 1,
      },
    ],
  };
}

describe('formatJUnit', () => {
  it('keeps characters outside the Basic Multilingual Plane, and drops what XML cannot hold', () => {
    const xml = formatJUnit(reportWith('answered "🚀 ready" <b>\u0000\u001b\uD800 & more'));
    expect(xml).toContain('answered &quot;🚀 ready&quot; &lt;b&gt; &amp; more');
    expect(xml).not.toContain('\u0000');
    expect(xml).not.toContain('\u001b');
    // No lone surrogate left: every code unit of the surrogate range pairs up.
    expect(encodeURIComponent(xml)).toBeTypeOf('string');
  });
});
