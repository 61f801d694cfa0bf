import type { CheckReport, CheckResult } from '../check/report.ts';
import { RULES } from '../contract/rules.ts';

const MARK = { passed: 'pass', failed: 'FAIL', skipped: 'skip' } as const;

// C0 and C1 controls (escape sequences, CR, LF) and bidirectional overrides.
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is what it is for.
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * `text` with control characters shown as `\u{…}`: ids, titles and messages quote what the
 * gateway sent (action ids, error codes, values), which must not move the cursor, recolour, or
 * start a line of its own that reads as a check's result.
 */
const printable = (text: string): string =>
  text.replace(CONTROLS, (c) => `\\u{${c.codePointAt(0)?.toString(16)}}`);

/**
 * One line (two for failures and skips) per check, as printed while the run goes.
 *
 * @example
 * await checkGateway({ url, token, onCheck: (result) => console.log(formatCheck(result)) });
 */
export function formatCheck(result: CheckResult): string {
  const line = `${MARK[result.status]}  ${printable(result.id)}  ${printable(result.title)}`;
  if (result.status === 'passed') return line;
  const rule =
    result.status === 'failed' ? ` [rule ${result.rule}: ${RULES[result.rule].contract}]` : '';
  return `${line}\n      ${printable(result.message ?? '')}${rule}`;
}

/**
 * The summary line: counts, time, gateway.
 *
 * @example
 * formatSummary(report); // 'svc-gateway-check: 56 passed, 0 failed, 9 skipped (65 checks) in 3.4 s — http://127.0.0.1:8787'
 */
export function formatSummary(report: CheckReport): string {
  const { passed, failed, skipped } = report.counts;
  const total = passed + failed + skipped;
  const failedRules = [
    ...new Set(report.checks.filter((c) => c.status === 'failed').map((c) => c.rule)),
  ];
  const broken = failedRules.length > 0 ? `; rules broken: ${failedRules.join(', ')}` : '';
  const incomplete = report.incomplete
    ? `; could not run to the end: ${printable(report.incomplete)}`
    : '';
  return `svc-gateway-check: ${passed} passed, ${failed} failed, ${skipped} skipped (${total} ${total === 1 ? 'check' : 'checks'}) in ${(report.durationMs / 1000).toFixed(1)} s — ${report.url}${broken}${incomplete}`;
}
