import {
  generateReport,
  issueRefund,
  lookupAccount,
  REPORT_DELAY_MS,
} from '@svc/example-demo-actions';
import { defineAction } from '@svc/gateway-kit';
import { z } from 'zod';

// The demo catalogue with every input schema written with zod 4 instead of valibot. The business
// logic (`run`, `precheck`) and the metadata are the demo's own: only `input` changes, and the
// gateway publishes the same manifest and gives the same answers. zod ≥ 4.2 implements Standard
// Schema and Standard JSON Schema, which is all `defineAction` needs.

/** Sync, read-only: `run` receives `{ accountId: string }`, typed from the zod schema. */
export const lookupAccountZod = defineAction({
  ...lookupAccount,
  input: z.strictObject({
    accountId: z.string().regex(/^acc_\d{1,20}$/, 'Expected an account id like acc_1001'),
  }),
});

/** Async job: `delayMs` is optional for the caller and always a number in `run` (the default). */
export const generateReportZod = defineAction({
  ...generateReport,
  input: z.strictObject({
    topic: z.string().min(1, 'Expected a topic').max(200, 'Expected at most 200 characters'),
    delayMs: z
      .int('Expected a whole number of milliseconds')
      .min(REPORT_DELAY_MS.min, `Expected at least ${REPORT_DELAY_MS.min}`)
      .max(REPORT_DELAY_MS.max, `Expected at most ${REPORT_DELAY_MS.max}`)
      .default(REPORT_DELAY_MS.default),
  }),
});

/** Needs an operator's approval; `precheck` refuses impossible refunds at once. */
export const issueRefundZod = defineAction({
  ...issueRefund,
  input: z.strictObject({
    orderId: z.string().regex(/^ord_\d+$/, 'Expected an order id like ord_2001'),
    amountCents: z.int('Expected a whole number of cents').min(1, 'Expected at least 1 cent'),
  }),
});

/** Every action of the zod demo gateway. */
export const zodDemoActions = [lookupAccountZod, generateReportZod, issueRefundZod];
