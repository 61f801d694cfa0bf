import type { CheckReport } from '../check/report.ts';
import { RULES } from '../contract/rules.ts';

const escapeXml = (text: string): string =>
  text
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

/**
 * The report as JUnit XML: one test suite per contract rule, one test case per check; failed
 * checks carry a `<failure>`, skipped ones a `<skipped>` with the reason.
 *
 * @example
 * await writeFile('gateway-check.xml', formatJUnit(report));
 */
export function formatJUnit(report: CheckReport): string {
  const rules = [...new Set(report.checks.map((c) => c.rule))];
  const suites = rules.map((rule) => {
    const checks = report.checks.filter((c) => c.rule === rule);
    const failures = checks.filter((c) => c.status === 'failed').length;
    const skipped = checks.filter((c) => c.status === 'skipped').length;
    const time = checks.reduce((sum, c) => sum + c.durationMs, 0) / 1000;
    const cases = checks.map((c) => {
      const open = `    <testcase classname="${escapeXml(rule)}" name="${escapeXml(`${c.id} — ${c.title}`)}" time="${(c.durationMs / 1000).toFixed(3)}"`;
      if (c.status === 'passed') return `${open}/>`;
      const message = escapeXml(c.message ?? '');
      const inner =
        c.status === 'failed'
          ? `<failure message="${message}" type="${escapeXml(rule)}">${escapeXml(`${RULES[rule].summary} (${RULES[rule].contract})`)}</failure>`
          : `<skipped message="${message}"/>`;
      return `${open}>\n      ${inner}\n    </testcase>`;
    });
    return `  <testsuite name="${escapeXml(rule)}" tests="${checks.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${time.toFixed(3)}">\n${cases.join('\n')}\n  </testsuite>`;
  });
  const { passed, failed, skipped } = report.counts;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="svc-gateway-check ${escapeXml(report.url)}" tests="${passed + failed + skipped}" failures="${failed}" errors="0" skipped="${skipped}" time="${(report.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
