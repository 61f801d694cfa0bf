import { Writable } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { asyncGateway, TOKEN } from '../../test/async-fixture.ts';
import { startCallbackReceiver } from '../../test/callback-receiver.ts';
import type { GatewayRuntime } from '../context/gateway-runtime.ts';
import { releaseQuota } from '../quotas/quotas.ts';
import { createTestClient, invokeBody } from '../testing/index.ts';
import type { GatewayLogger } from './logger.ts';

/** Every line a logger received, as text: message, fields, and the errors' messages and stacks. */
function capture(): { logger: Required<GatewayLogger>; lines: string[] } {
  const lines: string[] = [];
  const write =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      lines.push(
        `${level} ${message} ${JSON.stringify(fields, (_key, value: unknown) =>
          value instanceof Error ? `${value.message} ${value.stack} ${String(value.cause)}` : value,
        )}`,
      );
    };
  return {
    lines,
    logger: {
      error: write('error'),
      warn: write('warn'),
      info: write('info'),
      debug: write('debug'),
    },
  };
}

describe('logging', () => {
  it('a pino logger adapted as documented keeps the message, the fields and the level', () => {
    const written: string[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        written.push(String(chunk));
        done();
      },
    });
    const log = pino({ level: 'debug' }, stream);
    const logger: GatewayLogger = {
      error: (message, fields) => log.error(fields, message),
      warn: (message, fields) => log.warn(fields, message),
      info: (message, fields) => log.info(fields, message),
      debug: (message, fields) => log.debug(fields, message),
    };
    logger.debug?.('route', { method: 'POST', route: 'invoke' });
    logger.error('action failed', { actionId: 'a', invocationId: 'inv_1' });
    expect(written.map((line) => JSON.parse(line))).toMatchObject([
      { level: 20, msg: 'route', method: 'POST', route: 'invoke' },
      { level: 50, msg: 'action failed', actionId: 'a', invocationId: 'inv_1' },
    ]);
  });

  it("a pino logger passed as it is logs the kit's warnings (its methods keep their `this`)", async () => {
    const written: { level: number; msg: string }[] = [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        written.push(JSON.parse(String(chunk)) as { level: number; msg: string });
        done();
      },
    });
    const receiver = await startCallbackReceiver();
    const gateway = asyncGateway({
      logger: pino(stream),
      // A hook that throws ('hook failed', from the observer) and a callback that cannot be
      // delivered ('callback not delivered', from the gateway's default onDeliveryFailed).
      hooks: {
        onInvokeAnswered: () => {
          throw new Error('hook broke');
        },
      },
      callbacks: { urlPolicy: { allowInsecureLoopback: true }, maxAttempts: 1 },
    });
    const client = createTestClient(gateway, { token: TOKEN });
    await receiver.close();
    try {
      await client.invoke(
        invokeBody(
          'generate-report',
          { topic: 'q3' },
          { callbacks: { jobResultUrl: `${receiver.url}/jobs` } },
        ),
      );
      await gateway.idle();
    } finally {
      await gateway.close();
    }
    const warnings = written.filter((line) => line.level === 40).map((line) => line.msg);
    expect(warnings).toContain('hook failed');
    expect(warnings).toContain('callback not delivered');
  });

  it('logs routing decisions at debug, and never a token, callback credential or raw input in a full run', async () => {
    const receiver = await startCallbackReceiver();
    const { logger, lines } = capture();
    let now = Date.now();
    const gateway = asyncGateway({
      logger,
      now: () => now,
      approvals: { ttlMs: 60_000 },
      callbacks: { urlPolicy: { allowInsecureLoopback: true }, maxAttempts: 1 },
      hooks: { onInvokeAnswered: () => {} },
    });
    const client = createTestClient(gateway, { token: TOKEN });
    const credential = 'Bearer cb-credential-7f3a';
    const callbacks = {
      jobResultUrl: `${receiver.url}/jobs?token=url-secret-91c2`,
      approvalUrl: `${receiver.url}/approvals`,
      authorization: credential,
    };
    try {
      // A job that completes and calls back, one that crashes, an approval approved, one that
      // expires, a callback that cannot be delivered, an invalid input.
      await client.invoke(invokeBody('generate-report', { topic: 'raw-input-a1' }, { callbacks }));
      await client.invoke(
        invokeBody('generate-report', { topic: 'raw-input-a2', mode: 'throw' }, { callbacks }),
      );
      const approval = await client.invoke(
        invokeBody('issue-refund', { orderId: 'raw-input-b1', amountCents: 7 }, { callbacks }),
      );
      const approvalId = (approval.body as { approval: { approvalId: string } }).approval
        .approvalId;
      await gateway.approvals.decide(approvalId, { approved: true, decidedBy: 'ops' });
      const expiring = await client.invoke(
        invokeBody('issue-refund', { orderId: 'raw-input-b2', amountCents: 8 }, { callbacks }),
      );
      await gateway.idle();
      await receiver.close();
      await client.invoke(invokeBody('generate-report', { topic: 'raw-input-a3' }, { callbacks }));
      await client.invoke(invokeBody('generate-report', { topic: 42, secret: 'raw-input-c1' }));
      await client.invoke(invokeBody('count-calls', { n: 1, crash: true, note: 'raw-input-c2' }));
      now += 61_000;
      await gateway.approvals.get(
        (expiring.body as { approval: { approvalId: string } }).approval.approvalId,
      );
      await gateway.idle();
    } finally {
      await gateway.close();
      await receiver.close().catch(() => {});
    }

    const all = lines.join('\n');
    // The run did log: routing decisions, failures and the undelivered callback.
    expect(all).toContain('debug route');
    expect(all).toContain('debug invoke dispatched');
    expect(all).toContain('"as":"approval"');
    expect(all).toContain('error action failed');
    expect(all).toContain('warn callback not delivered');
    for (const secret of [TOKEN, credential, 'cb-credential', 'url-secret', 'raw-input-'])
      expect(all).not.toContain(secret);
  });

  it('a logger without `warn` gets every warning through `error`, none dropped', async () => {
    const errors: string[] = [];
    const logger: GatewayLogger = { error: (message) => errors.push(message) };
    const runtime = {
      logger,
      records: {
        removeFromSet: () => Promise.reject(new Error('store down')),
      },
    } as unknown as GatewayRuntime;
    await releaseQuota(runtime, 'idempotencyKeys', 'alice', 'k1');
    expect(errors).toEqual(['quota release failed; it frees itself when it expires']);
  });
});
