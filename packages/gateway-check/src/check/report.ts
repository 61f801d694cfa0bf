import type { RuleId } from '../contract/rules.ts';

/**
 * `passed`: the gateway did what the rule says; `failed`: it did not (the message says what it did);
 * `skipped`: the check could not run (the message says why) — never counted as a pass.
 *
 * @example
 * const failed = report.checks.filter((c) => c.status === ('failed' satisfies CheckStatus));
 */
export type CheckStatus = 'passed' | 'failed' | 'skipped';

/**
 * The result of one check.
 *
 * @example
 * for (const c of report.checks) if (c.status === 'failed') console.log(c.rule, c.message);
 */
export interface CheckResult {
  /** Stable id, `<rule>:<subject>`, e.g. `auth-bearer:invoke:wrong-token`; `--only` matches it. */
  readonly id: string;
  /** The contract rule it enforces (see `RULES`). */
  readonly rule: RuleId;
  /** What was checked, in a sentence. */
  readonly title: string;
  /** Whether the check passed, failed or was skipped. */
  readonly status: CheckStatus;
  /** What the gateway did wrong (failed) or why the check could not run (skipped). */
  readonly message?: string;
  /** How long the check took, in whole milliseconds. */
  readonly durationMs: number;
}

/**
 * What {@link checkGateway} reports (and the CLI prints, as text, JSON or JUnit XML).
 *
 * @example
 * const report = await checkGateway({ url, token });
 * expect(report.checks.filter((c) => c.status === 'failed')).toEqual([]);
 */
export interface CheckReport {
  /** The gateway base URL checked. */
  readonly url: string;
  /** When the run started (ISO 8601). */
  readonly startedAt: string;
  /** How long the run took, in whole milliseconds. */
  readonly durationMs: number;
  /** How many of `checks` passed, failed and were skipped. */
  readonly counts: {
    /** Checks that passed. */
    readonly passed: number;
    /** Checks that failed. */
    readonly failed: number;
    /** Checks that could not run. */
    readonly skipped: number;
  };
  /** True when the run completed and no check failed (skipped checks are listed, with why). */
  readonly ok: boolean;
  /**
   * Set when the run could not complete, saying why: the gateway could not be reached, the overall
   * deadline (`deadlineMs`) passed, or the caller's signal aborted. The checks listed are those
   * that ran; the CLI exits 2.
   */
  readonly incomplete?: string;
  /** In the order they were started. */
  readonly checks: readonly CheckResult[];
}
