import { afterAll, describe, expect, it } from 'vitest';
import { checkGateway } from '../src/check/check-gateway.ts';
import type { CheckReport } from '../src/check/report.ts';
import { RULES, type RuleId } from '../src/contract/rules.ts';
import { BROKEN_GATEWAYS } from './fixtures/broken-gateways.ts';
import { referenceGateway, TOKEN } from './fixtures/reference-gateway.ts';
import { IN_PROCESS_URL, inProcess } from './gateways.ts';

const failedRules = (report: CheckReport) => [
  ...new Set(report.checks.filter((c) => c.status === 'failed').map((c) => c.rule)),
];

const gateways: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(gateways.splice(0).map((g) => g.close()));
});

describe('a gateway that breaks one rule', () => {
  // Each test has its own gateway: they run concurrently (the async fixture job takes 800 ms).
  it.concurrent.for(BROKEN_GATEWAYS.map((b) => [b.name, b] as const))(
    '%s: only its rule fails',
    async ([, broken], { expect }) => {
      const gateway = referenceGateway();
      gateways.push(gateway);
      const report = await checkGateway({
        url: IN_PROCESS_URL,
        token: TOKEN,
        fetch: inProcess(broken.wrap((request) => gateway.fetch(request))),
        pollIntervalMs: 20,
        ...broken.options,
      });
      expect(failedRules(report)).toEqual([broken.rule]);
      expect(report.ok).toBe(false);
      for (const check of report.checks.filter((c) => c.status === 'failed')) {
        expect(check.message).toBeTruthy();
        expect(check.message).not.toContain(TOKEN);
      }
    },
  );
});

it('every rule has a broken gateway that it alone catches', () => {
  // Each fixture above fails its rule and no other; this makes sure no rule is left without one.
  const covered = new Set(BROKEN_GATEWAYS.map((broken) => broken.rule));
  expect(Object.keys(RULES).filter((rule) => !covered.has(rule as RuleId))).toEqual([]);
});
