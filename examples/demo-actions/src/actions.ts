import { defineAction, reject } from '@svc/gateway-kit';
import * as v from 'valibot';

// A tiny in-memory back office, so the demo answers realistic data without any service.
const ACCOUNTS: Record<string, { name: string; plan: string; status: 'active' | 'suspended' }> = {
  acc_1001: { name: 'Globex GmbH', plan: 'enterprise', status: 'active' },
  acc_1002: { name: 'Initech Ltd', plan: 'team', status: 'active' },
  acc_1003: { name: 'Umbrella plc', plan: 'team', status: 'suspended' },
};

const ORDERS: Record<string, { accountId: string; totalCents: number; currency: string }> = {
  ord_2001: { accountId: 'acc_1001', totalCents: 12_900, currency: 'EUR' },
  ord_2002: { accountId: 'acc_1002', totalCents: 240_000, currency: 'EUR' },
  ord_2003: { accountId: 'acc_1003', totalCents: 4_500, currency: 'EUR' },
};

/** The largest refund the gateway issues (after an operator's approval): 500.00. */
export const REFUND_LIMIT_CENTS = 50_000;

/** Bounds of `generate-report`'s `delayMs`: how long the simulated report takes. */
export const REPORT_DELAY_MS = { default: 3_000, min: 0, max: 60_000 } as const;

const money = (cents: number, currency: string): string =>
  `${(cents / 100).toFixed(2)} ${currency}`;

/** Sync, read-only: what the assistant calls when someone asks about a customer. */
export const lookupAccount = defineAction({
  id: 'lookup-account',
  title: 'Look up an account',
  description: 'Finds a customer account by its id (e.g. acc_1001) and reports plan and status.',
  input: v.strictObject({
    accountId: v.pipe(
      v.string(),
      v.regex(/^acc_\d{1,20}$/, 'Expected an account id like acc_1001'),
    ),
  }),
  sideEffectLevel: 'read',
  idempotent: true,
  run: ({ accountId }) => {
    const account = ACCOUNTS[accountId];
    if (!account) {
      return reject({ code: 'account_not_found', message: `No account ${accountId}.` });
    }
    return {
      outputText: `${account.name} is on the ${account.plan} plan and is ${account.status}.`,
      machineSummary: `account=${accountId} plan=${account.plan} status=${account.status}`,
      dataSchemaVersion: '1',
      data: { accountId, ...account },
    };
  },
});

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts (job cancelled). */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, fail) => {
    if (signal.aborted) {
      fail(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      fail(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

const REPORT_STEPS = ['Collecting figures', 'Comparing with last quarter', 'Writing the summary'];

/**
 * Async: answers `accepted` at once and runs as a job for `delayMs`, publishing progress on the job
 * resource. Cancelling the job aborts `signal`, which stops the work between (and during) steps.
 */
export const generateReport = defineAction({
  id: 'generate-report',
  title: 'Generate a report',
  description:
    'Writes a short business report on a topic. Takes a few seconds; the result arrives as a job.',
  input: v.strictObject({
    topic: v.pipe(
      v.string(),
      v.minLength(1, 'Expected a topic'),
      v.maxLength(200, 'Expected at most 200 characters'),
    ),
    delayMs: v.optional(
      v.pipe(
        v.number(),
        v.integer('Expected a whole number of milliseconds'),
        v.minValue(REPORT_DELAY_MS.min, `Expected at least ${REPORT_DELAY_MS.min}`),
        v.maxValue(REPORT_DELAY_MS.max, `Expected at most ${REPORT_DELAY_MS.max}`),
      ),
      REPORT_DELAY_MS.default,
    ),
  }),
  executionMode: 'async',
  sideEffectLevel: 'read',
  idempotent: true,
  run: async ({ topic, delayMs }, { signal, job }) => {
    const stepMs = delayMs / REPORT_STEPS.length;
    for (const [index, step] of REPORT_STEPS.entries()) {
      await job?.progress({
        outputText: `${step} for "${topic}" (${index + 1}/${REPORT_STEPS.length})…`,
        machineSummary: `step=${index + 1}/${REPORT_STEPS.length}`,
      });
      await pause(stepMs, signal);
    }
    return {
      outputText: `The report on "${topic}" is ready: revenue is up 4% on last quarter.`,
      machineSummary: `report topic_length=${topic.length} sections=${REPORT_STEPS.length}`,
      dataSchemaVersion: '1',
      data: { topic, sections: REPORT_STEPS, revenueChangePercent: 4 },
    };
  },
});

const refunds: Array<{ refundId: string; orderId: string; amountCents: number }> = [];

/**
 * Destructive, needs an operator's approval: answers `approval_required`; once approved it runs as
 * a job. `precheck` refuses at invoke time, before anyone is asked to approve, what no operator
 * could approve: an unknown order, more than the order's total, more than {@link REFUND_LIMIT_CENTS}.
 */
export const issueRefund = defineAction({
  id: 'issue-refund',
  title: 'Issue a refund',
  description: `Refunds part or all of an order (e.g. ord_2001) in cents. Needs an operator's approval; refunds above ${money(REFUND_LIMIT_CENTS, 'EUR')} are refused.`,
  input: v.strictObject({
    orderId: v.pipe(v.string(), v.regex(/^ord_\d+$/, 'Expected an order id like ord_2001')),
    amountCents: v.pipe(
      v.number(),
      v.integer('Expected a whole number of cents'),
      v.minValue(1, 'Expected at least 1 cent'),
    ),
  }),
  requiresApproval: true,
  sideEffectLevel: 'destructive',
  idempotent: false,
  precheck: ({ orderId, amountCents }) => {
    const order = ORDERS[orderId];
    if (!order) return reject({ code: 'order_not_found', message: `No order ${orderId}.` });
    if (amountCents > REFUND_LIMIT_CENTS) {
      return reject({
        code: 'refund_over_limit',
        message: `Refunds above ${money(REFUND_LIMIT_CENTS, order.currency)} need a manager and cannot be issued here.`,
        details: { limitCents: REFUND_LIMIT_CENTS },
      });
    }
    if (amountCents > order.totalCents) {
      return reject({
        code: 'refund_exceeds_order',
        message: `The refund is larger than the order total of ${money(order.totalCents, order.currency)}.`,
        details: { orderTotalCents: order.totalCents },
      });
    }
    return undefined;
  },
  run: ({ orderId, amountCents }) => {
    const order = ORDERS[orderId];
    if (!order) return reject({ code: 'order_not_found', message: `No order ${orderId}.` });
    const refund = { refundId: `ref_${3001 + refunds.length}`, orderId, amountCents };
    refunds.push(refund);
    return {
      outputText: `Refunded ${money(amountCents, order.currency)} on order ${orderId}.`,
      machineSummary: `refund=${refund.refundId} order=${orderId} amountCents=${amountCents}`,
      dataSchemaVersion: '1',
      data: { ...refund, currency: order.currency },
    };
  },
});

/** Every action the demo gateway offers. */
export const demoActions = [lookupAccount, generateReport, issueRefund];
