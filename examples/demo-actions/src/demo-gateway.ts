import { createGateway, type Gateway, type GatewayOptions } from '@svc/gateway-kit';
import type { ResolveHost } from '@svc/gateway-kit/callbacks';
import { demoActions } from './actions.ts';

/** Environment variables as every runtime hands them over (`process.env`, `Deno.env.toObject()`). */
export type DemoEnv = Readonly<Record<string, string | undefined>>;

/** The local development token. Any real deployment sets `GATEWAY_TOKEN`. */
export const DEV_GATEWAY_TOKEN = 'dev-gateway-token';
/** The local development token of the operator API (examples/node). */
export const DEV_OPERATOR_TOKEN = 'dev-operator-token';

/** The demo's settings, read from the environment. */
export interface DemoConfig {
  /** `PORT`; `0` picks any free port. Default 8787. */
  readonly port: number;
  /** `HOST`, the interface to bind. Default `127.0.0.1` (loopback only). */
  readonly hostname: string;
  /** `GATEWAY_TOKEN`, the bearer token the hosted service sends. Default {@link DEV_GATEWAY_TOKEN}. */
  readonly token: string;
  readonly usingDevToken: boolean;
  /**
   * `EXTRA_GATEWAY_TOKENS`, comma-separated: more callers, each its own principal (`caller-1`,
   * `caller-2`, … in list order), with its own jobs, approvals and quotas. `GATEWAY_TOKEN` stays
   * the principal `default`. Empty by default.
   */
  readonly extraTokens: readonly string[];
  /** `GATEWAY_URL`: the public base address, when the gateway sits behind a proxy. */
  readonly url?: string;
  /** `ALLOW_LOOPBACK_CALLBACKS=1`: callbacks to http://127.0.0.1 / localhost are allowed. */
  readonly allowLoopbackCallbacks: boolean;
  /** What the demo should print as a warning on startup (e.g. a variable set but empty). */
  readonly warnings: readonly string[];
}

/**
 * Whether `hostname` (the `HOST` to bind) is a loopback address: `127.x.x.x`, `::1`, `localhost`.
 * The development tokens are public, so the demos use them only there.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Reads and checks the demo's environment variables; throws with a message naming the variable. */
export function readDemoConfig(env: DemoEnv): DemoConfig {
  const rawPort = env.PORT?.trim() || '8787';
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port > 65_535) {
    throw new Error(`PORT must be a port number between 0 and 65535 (0 = any free port).`);
  }
  const warnings: string[] = [];
  const hostname = env.HOST?.trim() || '127.0.0.1';
  const ownToken = env.GATEWAY_TOKEN?.trim();
  // Empty counts as unset, but never silently: a deployment that meant to set it hears about it.
  if (env.GATEWAY_TOKEN !== undefined && !ownToken) {
    warnings.push('GATEWAY_TOKEN is set but empty: treated as unset.');
  }
  if (!ownToken && !isLoopbackHost(hostname)) {
    throw new Error(
      `HOST=${hostname} is not a loopback address: set GATEWAY_TOKEN (and OPERATOR_TOKEN for examples/node's approvals page) to secrets of your own; the development token ${DEV_GATEWAY_TOKEN} is public.`,
    );
  }
  const token = ownToken || DEV_GATEWAY_TOKEN;
  const loopback = env.ALLOW_LOOPBACK_CALLBACKS?.trim() ?? '';
  if (!['', '0', '1'].includes(loopback)) {
    throw new Error('ALLOW_LOOPBACK_CALLBACKS must be 1 (allow) or 0 (refuse, the default).');
  }
  const url = env.GATEWAY_URL?.trim();
  const extraTokens = readExtraTokens(env.EXTRA_GATEWAY_TOKENS, token);
  return {
    port,
    hostname,
    token,
    usingDevToken: token === DEV_GATEWAY_TOKEN,
    extraTokens,
    allowLoopbackCallbacks: loopback === '1',
    warnings,
    ...(url ? { url } : {}),
  };
}

/**
 * The principal id of the `n`-th (from 1) token of `EXTRA_GATEWAY_TOKENS`.
 *
 * @example
 * extraCallerId(2); // 'caller-2'
 */
export const extraCallerId = (n: number): string => `caller-${n}`;

// Messages name the variable and the position, never a token.
function readExtraTokens(raw: string | undefined, gatewayToken: string): string[] {
  const list = raw?.trim();
  if (!list) return [];
  const tokens = list.split(',').map((entry) => entry.trim());
  const seen = new Set([gatewayToken]);
  for (const [index, token] of tokens.entries()) {
    const which = `EXTRA_GATEWAY_TOKENS entry ${index + 1}`;
    if (!/^[\w.~+/-]+=*$/.test(token)) {
      throw new Error(`${which} must be a non-empty bearer token (letters, digits, - . _ ~ + /).`);
    }
    if (seen.has(token)) {
      throw new Error(
        `${which} repeats GATEWAY_TOKEN or an earlier entry: each caller needs its own.`,
      );
    }
    seen.add(token);
  }
  return tokens;
}

/** Where the gateway is mounted inside a larger app. */
export interface DemoGatewayOptions {
  /** Path prefix the gateway sees on every request, e.g. `/gateway` (Hono forwarding `c.req.raw`). */
  readonly basePath?: string;
  /** Public base address, when the gateway cannot derive it from requests (Express `app.use`). */
  readonly url?: string;
  /** Shared stores for several instances (e.g. `@svc/gateway-kit-redis`); in-memory by default. */
  readonly jobStore?: GatewayOptions['jobStore'];
  readonly recordStore?: GatewayOptions['recordStore'];
  /** The catalogue to serve; {@link demoActions} by default (examples/zod passes its zod version). */
  readonly actions?: GatewayOptions['actions'];
  /** DNS check of callback hosts where the runtime has DNS (Node: `resolveHostWithNodeDns`). */
  readonly resolveHost?: ResolveHost;
  /** Lifecycle hooks, e.g. a chat notification per approval (examples/node, `CHAT_WEBHOOK_URL`). */
  readonly hooks?: GatewayOptions['hooks'];
  /** Where the gateway logs, e.g. the framework's logger (examples/fastify); the console by default. */
  readonly logger?: GatewayOptions['logger'];
  /**
   * `gateway.fetch` served by Deno, Bun or Hono: with `HOST` on loopback, answer only requests addressed
   * to a loopback host (DNS rebinding; `serve()` and `toNodeHandler()` check this themselves).
   */
  readonly loopbackOnly?: boolean;
}

/** The demo gateway and the settings it was made with. */
export interface DemoGateway {
  readonly gateway: Gateway;
  readonly config: DemoConfig;
}

/**
 * Creates the demo gateway (the catalogue of {@link demoActions}) from environment variables, so
 * each runtime's example only has to serve `gateway.fetch`.
 *
 * @example
 * const { gateway, config } = createDemoGateway(process.env, { loopbackOnly: true });
 * Bun.serve({ port: config.port, hostname: config.hostname, fetch: gateway.fetch });
 */
export function createDemoGateway(env: DemoEnv, options: DemoGatewayOptions = {}): DemoGateway {
  const config = readDemoConfig(env);
  const url = config.url ?? options.url;
  const gateway = createGateway({
    gateway: { id: 'demo', name: 'Demo back office', ...(url ? { url } : {}) },
    agent: {
      id: 'demo-agent',
      name: 'Demo agent',
      description: 'Answers account questions, writes reports and issues refunds during meetings.',
    },
    version: '2026-11-22',
    actions: options.actions ?? demoActions,
    auth: {
      tokens: [
        config.token,
        ...config.extraTokens.map((token, i) => ({
          token,
          principal: { id: extraCallerId(i + 1) },
        })),
      ],
    },
    ...(options.basePath ? { basePath: options.basePath } : {}),
    ...(options.jobStore ? { jobStore: options.jobStore } : {}),
    ...(options.recordStore ? { recordStore: options.recordStore } : {}),
    ...(options.hooks ? { hooks: options.hooks } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.loopbackOnly && isLoopbackHost(config.hostname) ? { loopbackOnly: true } : {}),
    // Callback URLs come from the caller: only an explicit opt-in lets them reach this machine.
    callbacks: {
      urlPolicy: { allowInsecureLoopback: config.allowLoopbackCallbacks },
      ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
    },
  });
  return { gateway, config };
}

/**
 * What every example prints once it listens. The first line, `listening on <gateway URL>`, is what
 * the end-to-end tests wait for.
 */
export function startupMessage(gatewayUrl: string, config: DemoConfig): string {
  const lines = [`Demo gateway listening on ${gatewayUrl}`];
  if (config.usingDevToken) {
    lines.push(
      `Using the local development token (set GATEWAY_TOKEN for anything real). Try:`,
      `  curl -H 'Authorization: Bearer ${DEV_GATEWAY_TOKEN}' ${gatewayUrl}/v1/manifest`,
    );
  }
  const extra = config.extraTokens.length;
  if (extra > 0) {
    // How many, and who they are: never the tokens themselves.
    const callers =
      extra === 1 ? extraCallerId(1) : `${extraCallerId(1)} … ${extraCallerId(extra)}`;
    lines.push(`EXTRA_GATEWAY_TOKENS: ${extra} more caller${extra === 1 ? '' : 's'} (${callers}).`);
  }
  if (config.allowLoopbackCallbacks) {
    lines.push('ALLOW_LOOPBACK_CALLBACKS=1: callbacks may target this machine (development only).');
  }
  // Every example prints this message, so each shows the configuration warnings too.
  for (const warning of config.warnings) lines.push(`Warning: ${warning}`);
  return lines.join('\n');
}
