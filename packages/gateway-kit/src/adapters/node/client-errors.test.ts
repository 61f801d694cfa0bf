import { once } from 'node:events';
import { createServer } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { expect, it } from 'vitest';
import { fixtureGateway, TOKEN } from '../../../test/fixture-gateway.ts';
import { answerClientError } from './client-errors.ts';
import { toNodeHandler } from './to-node-handler.ts';

// serve() installs it (serve.test.ts); a server of your own takes it as its JSDoc shows.
it('answers what Node refuses with an error envelope on a server of your own', async () => {
  const server = createServer(toNodeHandler(fixtureGateway())).on('clientError', answerClientError);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.write(
      `GET /v1/manifest HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\nX-Padding: ${'p'.repeat(17_000)}\r\n\r\n`,
    );
    await once(socket, 'close');
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
  } finally {
    server.close();
  }
});
