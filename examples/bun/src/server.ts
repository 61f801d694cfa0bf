import { createDemoGateway, startupMessage } from '@svc/example-demo-actions';

// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL and ALLOW_LOOPBACK_CALLBACKS: see docs/examples.md.
const { gateway, config } = createDemoGateway(process.env, { loopbackOnly: true });

const server = Bun.serve({ port: config.port, hostname: config.hostname, fetch: gateway.fetch });
console.log(startupMessage(server.url.origin, config));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await server.stop();
    await gateway.close();
    process.exit(0);
  });
}
