// Shared by the two async gateways of async.mjs and its runner: the same invoke body, token,
// action, retention and accepted answer, so both servers do the same work.
import * as v from 'valibot';

export { authorized, InvokeRequest, TOKEN } from '../../../gateway-kit/bench/fixtures.mjs';

import { TOKEN } from '../../../gateway-kit/bench/fixtures.mjs';

export const ACTION = { id: 'export-report', name: 'Export report' };
/** Finished jobs stay readable 24 h, and at most this many are kept (the Redis store's default). */
export const RETENTION = { ms: 24 * 60 * 60 * 1000, count: 100_000 };

/**
 * The kit's RedisJobStore options in the async benchmark (kit-server.mjs, store-calls.mjs): finished
 * jobs kept as BullMQ keeps them, also per principal (one principal sends every request, and the
 * default 1 000 per principal would expire the end-to-end run's first jobs before they are read).
 */
export const KIT_JOB_STORE = {
  retentionMs: RETENTION.ms,
  maxJobs: RETENTION.count,
  maxFinishedPerOwner: RETENTION.count,
};

export const ReportInput = v.strictObject({
  accountId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
  period: v.pipe(v.string(), v.regex(/^\d{4}-Q[1-4]$/)),
  format: v.picklist(['csv', 'pdf']),
});

/** The action's work: finishes at once, as in issue 24's measurement. */
export const exportReport = async (input) => ({
  outputText: `Report for ${input.accountId} (${input.period}) exported as ${input.format}.`,
});

export const BODY = JSON.stringify({
  invocationId: 'inv_01J9Z8Q4W6X3M2N7P5R8T0V1B2',
  meeting: { id: 'mtg_0042', roomName: 'Weekly pipeline review' },
  session: { id: 'sess_0009', mode: 'active' },
  action: { id: ACTION.id, input: { accountId: 'acc_123456', period: '2025-Q1', format: 'csv' } },
  context: { locale: 'en-GB', speaker: 'Dana Kowalski' },
  callbacks: {},
});

export const REQUEST_HEADERS = {
  authorization: `Bearer ${TOKEN}`,
  'content-type': 'application/json',
};

/** Every accepted answer starts with these bytes (then the job's own id and links). */
export const ACCEPTED_PREFIX = '{"status":"accepted","job":{"jobId":"';
