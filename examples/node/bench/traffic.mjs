// The soak's traffic: every kind of request a caller holding a valid token (or not) can send the
// demo gateway, each with the answers it may get. Quotas are part of the contract, so 429 is an
// expected answer wherever a request makes the gateway keep something (jobs, approvals, keys).
import { randomBytes } from 'node:crypto';

const KiB = 1024;
/** Defaults of createGateway (docs/security.md, "Limits and quotas"). */
const MAX_BODY_BYTES = 256 * KiB;
const MAX_CONTEXT_BYTES = 64 * KiB;

const RUN = randomBytes(4).toString('hex');
let sequence = 0;
const nextId = () => `${RUN}_${++sequence}`;

/** An invoke body: the demo's meeting and session, `action`, `context` and extra top-level fields. */
function invoke(actionId, input, { context = { locale: 'en-GB' }, ...top } = {}) {
  return JSON.stringify({
    invocationId: `inv_soak_${nextId()}`,
    meeting: { id: 'mtg_soak', roomName: 'Soak test' },
    session: { id: 'sess_soak', mode: 'active' },
    action: { id: actionId, input },
    context,
    callbacks: {},
    ...top,
  });
}

/** A context of many small objects (what a transcript looks like), padded to exactly `bytes` of JSON. */
function transcriptContext(bytes) {
  const turns = [];
  let size = JSON.stringify({ turns, pad: '' }).length;
  for (let i = 0; ; i++) {
    const turn = { at: i, who: `speaker_${i % 7}`, said: 'ok' };
    const added = JSON.stringify(turn).length + (turns.length > 0 ? 1 : 0);
    if (size + added > bytes) break;
    turns.push(turn);
    size += added;
  }
  const context = { turns, pad: 'x'.repeat(bytes - size) };
  if (JSON.stringify(context).length !== bytes) throw new Error('transcriptContext: size drifted');
  return context;
}

/** Body of `bytes` bytes whose context is a flat list of tiny objects: costly to parse, if parsed. */
function objectHeavyBody(bytes) {
  const head = invoke('lookup-account', { accountId: 'acc_1001' }, { context: { items: [] } });
  const [before, after] = head.split('"items":[]');
  const item = '{"k":1},';
  const count = Math.floor((bytes - head.length) / item.length);
  return `${before}"items":[${item.repeat(count).slice(0, -1)}]${after}`;
}

const CONTEXT_UNDER = transcriptContext(MAX_CONTEXT_BYTES - 100);
const CONTEXT_OVER = transcriptContext(MAX_CONTEXT_BYTES + 100);
// Fixed bodies are built once; the gateway refuses them before or right after parsing.
const OVERSIZED = Buffer.from(
  invoke('lookup-account', { accountId: 'acc_1001' }, { context: { note: 'x'.repeat(300_000) } }),
);
const OBJECT_HEAVY_786K = Buffer.from(objectHeavyBody(786 * 1000));
const OBJECT_HEAVY_UNDER_BODY_LIMIT = Buffer.from(objectHeavyBody(MAX_BODY_BYTES - 2 * KiB));
const DEEP = Buffer.from(
  invoke('lookup-account', { accountId: 'acc_1001' }, { context: { deep: 'DEEP' } }).replace(
    '"DEEP"',
    `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
  ),
);

/**
 * One kind of request: `name`, how often it appears in a connection's rotation (`weight`), the
 * answers it may get as `<HTTP status> <invoke status or error code>` (`expect`; the first is what
 * a lone request gets), and how to build it for caller `principal` (an index).
 */
export function trafficClasses(callers) {
  const replayBodies = Array.from({ length: callers }, (_, p) =>
    invoke(
      'lookup-account',
      { accountId: 'acc_1002' },
      { idempotencyKey: `soak-replay-${RUN}-${p}` },
    ),
  );
  const post = (body) => ({ method: 'POST', path: '/v1/invoke', body });
  const lookup = (accountId, top) => post(invoke('lookup-account', { accountId }, top));
  const QUOTA = '429 quota_exceeded';
  const TOO_LARGE = '413 payload_too_large';
  return [
    { name: 'sync lookup', weight: 6, expect: ['200 completed'], make: () => lookup('acc_1001') },
    {
      name: 'sync, rejected (unknown account)',
      weight: 1,
      expect: ['200 rejected'],
      make: () => lookup('acc_9999'),
    },
    {
      name: 'idempotent, fresh key',
      weight: 2,
      expect: ['200 completed', QUOTA],
      make: () => lookup('acc_1003', { idempotencyKey: `soak-${nextId()}` }),
    },
    {
      name: 'idempotent replay',
      weight: 1,
      expect: ['200 completed'],
      make: (principal) => post(replayBodies[principal]),
    },
    {
      name: 'async report (job)',
      weight: 2,
      expect: ['200 accepted', QUOTA],
      make: () =>
        post(invoke('generate-report', { topic: 'Q3 churn', delayMs: 500 + (sequence % 2500) })),
    },
    {
      name: 'refund (approval)',
      weight: 1,
      expect: ['200 approval_required', QUOTA],
      make: () => post(invoke('issue-refund', { orderId: 'ord_2001', amountCents: 1250 })),
    },
    {
      name: 'context 64 KiB - 100 B, sync',
      weight: 1,
      expect: ['200 completed'],
      make: () => lookup('acc_1001', { context: CONTEXT_UNDER }),
    },
    {
      name: 'context 64 KiB - 100 B, job',
      weight: 1,
      expect: ['200 accepted', QUOTA],
      make: () =>
        post(
          invoke(
            'generate-report',
            { topic: 'Context', delayMs: 1000 },
            { context: CONTEXT_UNDER },
          ),
        ),
    },
    {
      name: 'invalid (unknown key, bad input)',
      weight: 1,
      expect: ['422 invalid_request'],
      make: () => lookup(42, { extra: true }),
    },
    {
      name: 'malformed JSON',
      weight: 1,
      expect: ['400 malformed_json'],
      make: () => post(`{"invocationId":"inv_${nextId()}",`),
    },
    {
      name: 'nested 20 000 deep',
      weight: 1,
      expect: ['400 malformed_json'],
      make: () => post(DEEP),
    },
    {
      name: 'wrong token',
      weight: 1,
      expect: ['401 unauthorized'],
      token: `wrong-${RUN}`,
      make: () => lookup('acc_1001'),
    },
    {
      name: 'manifest',
      weight: 1,
      expect: ['200'],
      make: () => ({ method: 'GET', path: '/v1/manifest' }),
    },
    {
      name: 'unknown job',
      weight: 1,
      expect: ['404 job_not_found'],
      make: () => ({ method: 'GET', path: `/v1/jobs/job_${nextId()}` }),
    },
    {
      name: 'context 64 KiB + 100 B',
      weight: 1,
      expect: [TOO_LARGE],
      make: () => lookup('acc_1001', { context: CONTEXT_OVER }),
    },
    {
      name: 'body 300 KB',
      weight: 1,
      expect: [TOO_LARGE],
      make: () => post(OVERSIZED),
    },
    {
      name: 'object-heavy body 254 KiB',
      weight: 1,
      expect: [TOO_LARGE],
      make: () => post(OBJECT_HEAVY_UNDER_BODY_LIMIT),
    },
    {
      name: 'object-heavy body 786 KB',
      weight: 1,
      expect: [TOO_LARGE],
      make: () => post(OBJECT_HEAVY_786K),
    },
  ];
}

/** `<HTTP status> <invoke status or error code>` of an answer, e.g. `200 accepted`, `429 quota_exceeded`. */
export function answerLabel(status, body) {
  let kind;
  try {
    const json = JSON.parse(body);
    kind = typeof json?.status === 'string' ? json.status : json?.error?.code;
  } catch {
    // Not JSON: the status alone.
  }
  return typeof kind === 'string' ? `${status} ${kind}` : String(status);
}

/**
 * The rotation every connection walks: each class `weight` times, spread out so that a
 * connection's neighbours in time differ, and each request from the next caller in turn.
 */
export function rotation(classes) {
  const slots = [];
  const most = Math.max(...classes.map((c) => c.weight));
  for (let round = 0; round < most; round++) {
    for (const traffic of classes) if (traffic.weight > round) slots.push(traffic);
  }
  return slots;
}

/** Bytes of a request body, for the report. */
export const bodyBytes = (traffic) => {
  const { body } = traffic.make(0);
  return body === undefined ? 0 : Buffer.byteLength(body);
};
