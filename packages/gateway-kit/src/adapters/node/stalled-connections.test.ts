import { once } from 'node:events';
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { connect } from 'node:net';
import * as v from 'valibot';
import { afterEach, describe, expect, it } from 'vitest';
import { TOKEN } from '../../../test/fixture-gateway.ts';
import { defineAction } from '../../actions/define-action.ts';
import { createGateway } from '../../gateway/create-gateway.ts';
import { GatewayConfigError } from '../../runtime/gateway-config-error.ts';
import { invokeBody } from '../../testing/index.ts';
import { type RunningServer, serve } from './serve.ts';
import { closeStalledConnections } from './stalled-connections.ts';

// An answer far larger than what the kernel buffers for a connection whose client does not read.
const BIG = 'x'.repeat(24 * 1024 * 1024);

const report = defineAction({
  id: 'report',
  description: 'A large report, or a slow one.',
  input: v.object({ wait: v.optional(v.boolean()) }),
  run: async ({ wait }, { signal }) => {
    // Runs until the client goes: nothing is written meanwhile.
    if (wait) await new Promise((resolve) => signal.addEventListener('abort', resolve));
    return { outputText: 'The report.', data: { text: BIG } };
  },
});
const gateway = createGateway({
  gateway: { id: 'acme', name: 'Acme' },
  actions: [report],
  auth: { tokens: [TOKEN] },
  logger: { error: () => {} },
});

function invoke(port: number, input: Record<string, unknown>): string {
  const body = JSON.stringify(invokeBody('report', input));
  return (
    `POST /v1/invoke HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TOKEN}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
  );
}

let running: RunningServer | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

async function connectTo(sendTimeoutMs: number) {
  running = await serve(gateway, { port: 0, sendTimeoutMs });
  const port = Number(new URL(running.url).port);
  const accepted = once(running.server, 'connection') as Promise<[Socket]>;
  const client = connect(port, '127.0.0.1');
  client.on('error', () => {});
  const [serverSide] = await accepted;
  return { port, client, serverSide };
}

describe('answers a client does not take', () => {
  it('closes the connection once its answer has waited sendTimeoutMs without going out', async () => {
    const { port, client, serverSide } = await connectTo(300);
    client.write(invoke(port, {}));
    client.pause(); // never reads: before, the server kept the connection and 24 MiB for ever
    const started = performance.now();
    await once(serverSide, 'close');
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(300);
    expect(waited).toBeLessThan(5_000);
    client.destroy();
  });

  it('keeps a connection whose client reads the answer, and one whose action runs longer than sendTimeoutMs', async () => {
    const { port, client } = await connectTo(300);
    let bytes = 0;
    client.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
    });
    client.write(invoke(port, {}));
    await new Promise<void>((resolve) => client.on('data', () => bytes > BIG.length && resolve()));
    expect(client.destroyed).toBe(false);
    // An action that runs a while writes nothing meanwhile: that is not a stalled answer.
    const slowStarted = performance.now();
    client.write(invoke(port, { wait: true }));
    const closed = once(client, 'close');
    // The scenario itself, not a wait for an event: five times sendTimeoutMs pass with the action
    // running and nothing written, and the connection must still be open.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(client.destroyed).toBe(false);
    expect(performance.now() - slowStarted).toBeGreaterThan(1_000);
    client.destroy();
    await closed;
  });

  it.each([0, -1, 1.5, Number.NaN, 2 ** 31, '1000'])(
    'closeStalledConnections(server, %j) throws a GatewayConfigError naming sendTimeoutMs',
    (value) => {
      const refused = () => closeStalledConnections(createServer(), value as number);
      expect(refused).toThrow(GatewayConfigError);
      expect(refused).toThrow(
        /^closeStalledConnections: sendTimeoutMs is .+: expected whole milliseconds from 1 to 2147483647\.$/,
      );
    },
  );
});
