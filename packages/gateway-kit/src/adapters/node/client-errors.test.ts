import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../test/fixture-gateway.ts';
import { fastifyGateway } from '../fastify/fastify-gateway.ts';
import { answerClientError } from './client-errors.ts';
import { toNodeHandler } from './to-node-handler.ts';

/** What a server on `port` answers to headers over Node's 16 KiB, up to the connection's end. */
async function oversizedHeaders(port: number): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.write(
    `GET /v1/manifest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nX-Padding: ${'p'.repeat(17_000)}\r\n\r\n`,
  );
  await once(socket, 'close');
  return received;
}

function expectEnvelope(received: string): void {
  const [head, body] = received.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
  expect(head).toContain('content-type: application/json');
  expect(JSON.parse(body!)).toEqual({
    error: {
      code: 'headers_too_large',
      message: 'The request headers are too large.',
      retryable: false,
    },
  });
}

// serve() installs it (serve.test.ts); a server of your own takes it as its JSDoc shows.
it('answers what Node refuses with an error envelope on a server of your own', async () => {
  const server = createServer(toNodeHandler(fixtureGateway())).on('clientError', answerClientError);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    expectEnvelope(await oversizedHeaders((server.address() as AddressInfo).port));
  } finally {
    server.close();
  }
});

it('is a Fastify clientErrorHandler too (for the whole app)', async () => {
  const app = Fastify({ clientErrorHandler: answerClientError });
  await app.register(fastifyGateway, { gateway: fixtureGateway(), prefix: '/gateway' });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    expectEnvelope(await oversizedHeaders((app.server.address() as AddressInfo).port));
  } finally {
    await app.close();
  }
});
