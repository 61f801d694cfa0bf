import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createDemoGateway,
  DEV_OPERATOR_TOKEN,
  isLoopbackHost,
  startupMessage,
} from '@svc/example-demo-actions';
import {
  answerClientError,
  closeStalledConnections,
  resolveHostWithNodeDns,
  toNodeHandler,
} from '@svc/gateway-kit/node';
import { RedisJobStore, RedisRecordStore } from '@svc/gateway-kit-redis';
import { approvalChatHooks } from './approval-chat.ts';
import { createOperatorHandler } from './operator.ts';
import { postgresStores } from './postgres-stores.ts';

// REDIS_URL switches jobs, approvals and idempotency records to Redis, so several instances can
// share them (docs/redis.md); REDIS_CLUSTER_URLS (comma-separated seed nodes) to a Redis Cluster;
// DATABASE_URL does the same on PostgreSQL (docs/postgres.md); without any of them the embedded
// in-memory stores are used.
const redisUrl = process.env.REDIS_URL?.trim();
const databaseUrl = process.env.DATABASE_URL?.trim();
const clusterSeeds = process.env.REDIS_CLUSTER_URLS?.split(',')
  .map((seed) => seed.trim())
  .filter(Boolean);
const redis = clusterSeeds?.length
  ? { cluster: { rootNodes: clusterSeeds.map((url) => ({ url })) } }
  : redisUrl
    ? { url: redisUrl }
    : undefined;
const stores = redis
  ? { jobStore: new RedisJobStore(redis), recordStore: new RedisRecordStore(redis) }
  : databaseUrl
    ? await postgresStores(databaseUrl)
    : {};
// Fail fast when Redis cannot be reached (the error names the URL, never its password), unless
// REDIS_START_DEGRADED=true: then requests answer 503 until Redis is back.
if (stores.jobStore && process.env.REDIS_START_DEGRADED?.trim() !== 'true') {
  try {
    await Promise.all([stores.jobStore.ready(), stores.recordStore.ready()]);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    await Promise.all([stores.jobStore.close(), stores.recordStore.close()]);
    process.exit(1);
  }
}

// PORT, HOST, GATEWAY_TOKEN, GATEWAY_URL and ALLOW_LOOPBACK_CALLBACKS: see docs/examples.md.
// Callback host names are resolved and refused when they point inside the network.
// CHAT_WEBHOOK_URL: each new approval is posted there (a chat incoming webhook), with a link to
// the approvals page.
const chatWebhookUrl = process.env.CHAT_WEBHOOK_URL?.trim();
let approvalsPageUrl = '';
const { gateway, config } = startOrExit(() =>
  createDemoGateway(process.env, {
    ...stores,
    resolveHost: resolveHostWithNodeDns,
    ...(chatWebhookUrl ? { hooks: approvalChatHooks(chatWebhookUrl, () => approvalsPageUrl) } : {}),
  }),
);
const operatorToken = readOperatorToken(process.env.OPERATOR_TOKEN, config.hostname);

// One server: the approvals page under /operator, the gateway contract everywhere else.
const operator = createOperatorHandler(gateway, { token: operatorToken });
const serveGateway = toNodeHandler(gateway);
// The bounds `serve()` sets (docs/security.md, "Node adapter limits"), on this hand-made server:
// Node enforces the two timeouts on the connectionsCheckingInterval tick (default 30 s, which
// would let a trickled body hold a connection for up to 60 s).
const server = createServer(
  {
    requestTimeout: 30_000,
    headersTimeout: 10_000,
    keepAliveTimeout: 65_000,
    connectionsCheckingInterval: 1_000,
  },
  (req, res) => operator(req, res) || serveGateway(req, res),
);
server.maxConnections = 512;
// What Node refuses before a handler runs (headers over 16 KiB, the timeouts) gets an envelope too.
server.on('clientError', answerClientError);
// An answer its client does not take within 30 s closes the connection (Node keeps it for ever).
closeStalledConnections(server);
server.listen(config.port, config.hostname);
await once(server, 'listening');

const { port } = server.address() as AddressInfo;
const host = config.hostname.includes(':') ? `[${config.hostname}]` : config.hostname;
const url = `http://${host}:${port}`;
approvalsPageUrl = `${url}/operator/`;
// Printed before the "listening on" line, which tools wait for.
console.log(
  redis
    ? `Jobs and approvals: Redis (${'cluster' in redis ? 'REDIS_CLUSTER_URLS' : 'REDIS_URL'})`
    : databaseUrl
      ? 'Jobs and approvals: PostgreSQL (DATABASE_URL)'
      : 'Jobs and approvals: in memory (set REDIS_URL or DATABASE_URL to share them)',
);
console.log(startupMessage(url, config));
console.log(
  `Approvals page: ${url}/operator/${operatorToken === DEV_OPERATOR_TOKEN ? ` (operator token: ${DEV_OPERATOR_TOKEN})` : ''}`,
);

// Ctrl-C (SIGINT, also forwarded by pnpm) or SIGTERM: close, then exit 0. A second signal while
// closing is ignored rather than killing the process mid-close (which pnpm reports as a failure).
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    server.close();
    server.closeIdleConnections();
    void gateway
      .close()
      .then(() => Promise.all([stores.jobStore?.close(), stores.recordStore?.close()]))
      .then(() => process.exit(0));
  });
}

/** A configuration error ends the demo with its message (naming the variable), exit code 1. */
function startOrExit<T>(start: () => T): T {
  try {
    return start();
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}

/** OPERATOR_TOKEN: empty counts as unset (with a warning); the development token stays on loopback. */
function readOperatorToken(raw: string | undefined, hostname: string): string {
  const token = raw?.trim();
  if (raw !== undefined && !token) {
    console.warn('Warning: OPERATOR_TOKEN is set but empty: treated as unset.');
  }
  if (token) return token;
  if (!isLoopbackHost(hostname)) {
    console.error(
      `HOST=${hostname} is not a loopback address: set OPERATOR_TOKEN (the approvals page's token) to a secret of your own; the development token ${DEV_OPERATOR_TOKEN} is public.`,
    );
    process.exit(1);
  }
  return DEV_OPERATOR_TOKEN;
}
