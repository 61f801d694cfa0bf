import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createDemoGateway, startupMessage } from '@svc/example-demo-actions';
import { answerClientError, closeStalledConnections, toNodeHandler } from '@svc/gateway-kit/node';
import { zodDemoActions } from './actions.ts';

// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL and ALLOW_LOOPBACK_CALLBACKS: see docs/examples.md.
// The demo gateway, with the zod-written catalogue in place of the valibot one.
const { gateway, config } = createDemoGateway(process.env, { actions: zodDemoActions });

const server = createServer(toNodeHandler(gateway)).on('clientError', answerClientError);
closeStalledConnections(server); // an answer not taken within 30 s closes its connection
server.listen(config.port, config.hostname);
await once(server, 'listening');

const { port } = server.address() as AddressInfo;
const host = config.hostname.includes(':') ? `[${config.hostname}]` : config.hostname;
console.log('Action inputs: zod schemas (Standard Schema)');
console.log(startupMessage(`http://${host}:${port}`, config));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    server.close();
    server.closeIdleConnections();
    void gateway.close().then(() => process.exit(0));
  });
}
