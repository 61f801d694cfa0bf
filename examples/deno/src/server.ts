import { createDemoGateway, startupMessage } from '@svc/example-demo-actions';

// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL and ALLOW_LOOPBACK_CALLBACKS: see docs/examples.md.
const { gateway, config } = createDemoGateway(Deno.env.toObject(), { loopbackOnly: true });

const server = Deno.serve(
  {
    port: config.port,
    hostname: config.hostname,
    onListen: ({ hostname, port }) => {
      const host = hostname.includes(':') ? `[${hostname}]` : hostname;
      console.log(startupMessage(`http://${host}:${port}`, config));
    },
  },
  gateway.fetch,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  Deno.addSignalListener(signal, async () => {
    await server.shutdown();
    await gateway.close();
    Deno.exit(0);
  });
}
