import {
  DEV_OPERATOR_TOKEN,
  demoActions,
  extraCallerId,
  isLoopbackHost,
  readDemoConfig,
} from '@svc/example-demo-actions';
import { createApprovalsHandler } from '@svc/gateway-kit';
import { createGatewayWorker, type GatewayNamespace } from '@svc/gateway-kit-cloudflare';

/** The Worker's bindings: the Durable Object namespace, and secrets / vars (`.dev.vars` locally). */
interface Env {
  readonly GATEWAY: GatewayNamespace;
  readonly GATEWAY_TOKEN?: string;
  readonly EXTRA_GATEWAY_TOKENS?: string;
  readonly OPERATOR_TOKEN?: string;
  readonly CALLBACK_SIGNING_SECRET?: string;
  readonly GATEWAY_URL?: string;
  readonly ALLOW_LOOPBACK_CALLBACKS?: string;
  /** How often the alarm checks on active jobs, in ms (default 30 000): see docs/cloudflare.md. */
  readonly JOB_WATCH_INTERVAL_MS?: string;
}

/** Only the string bindings: what the demo reads as its environment. */
function variables(env: Env): Record<string, string | undefined> {
  const vars: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env))
    if (typeof value === 'string') vars[name] = value;
  return vars;
}

const worker = createGatewayWorker<Env>({
  // The demo's catalogue and settings (docs/examples.md), with its secrets from Worker bindings.
  gateway: (env) => {
    const config = readDemoConfig(variables(env));
    const secret = env.CALLBACK_SIGNING_SECRET?.trim();
    return {
      gateway: { id: 'demo', name: 'Demo back office', ...(config.url ? { url: config.url } : {}) },
      agent: {
        id: 'demo-agent',
        name: 'Demo agent',
        description:
          'Answers account questions, writes reports and issues refunds during meetings.',
      },
      version: '2026-11-22',
      actions: demoActions,
      auth: {
        tokens: [
          config.token,
          ...config.extraTokens.map((token, i) => ({
            token,
            principal: { id: extraCallerId(i + 1) },
          })),
        ],
      },
      callbacks: {
        urlPolicy: { allowInsecureLoopback: config.allowLoopbackCallbacks },
        ...(secret ? { signingSecret: secret } : {}),
      },
    };
  },
  namespace: (env) => env.GATEWAY,
  watchIntervalMs: (env) => Number(env.JOB_WATCH_INTERVAL_MS?.trim() || 30_000),
});

/** Every caller's object (one per principal): the operator API looks for approvals there. */
function shardsOf(env: Env): Promise<string[]> {
  const config = readDemoConfig(variables(env));
  const principals = ['default', ...config.extraTokens.map((_, i) => extraCallerId(i + 1))];
  return Promise.all(principals.map((id) => worker.shardOfPrincipal(id)));
}

export const GatewayObject = worker.GatewayObject;

/**
 * The variables still on their public development token (`dev-gateway-token`, `dev-operator-token`,
 * printed in the docs), named in a message, when `request` is addressed to a host other than this
 * machine: a deployed Worker (`<name>.<account>.workers.dev`) is reachable by anyone, so there the
 * demo refuses them, as the other examples do on a non-loopback `HOST`. Never names a value.
 */
function devTokensRefused(request: Request, env: Env): string | undefined {
  if (isLoopbackHost(new URL(request.url).hostname)) return undefined;
  const unset = (['GATEWAY_TOKEN', 'OPERATOR_TOKEN'] as const).filter((name) => !env[name]?.trim());
  if (unset.length === 0) return undefined;
  return `${unset.join(' and ')} unset: the public development tokens answer requests to this machine only; set ${unset.length === 1 ? 'it' : 'them'} with \`wrangler secret put\` (or in .dev.vars).`;
}

/** Refusals already logged by this isolate: each once, not once per request. */
const logged = new Set<string>();

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const refusal = devTokensRefused(request, env);
    if (refusal !== undefined) {
      if (!logged.has(refusal)) {
        logged.add(refusal);
        console.error(`examples/cloudflare: every request answers 500 internal_error: ${refusal}`);
      }
      return Response.json(
        {
          error: {
            code: 'internal_error',
            message: 'The gateway failed unexpectedly.',
            retryable: false,
          },
        },
        { status: 500, headers: { 'cache-control': 'no-store' } },
      );
    }
    const path = new URL(request.url).pathname;
    // The operators' approvals API (list, get, decide), with its own token; the contract elsewhere.
    if (path.startsWith('/operator/api/')) {
      const operators = createApprovalsHandler(
        { approvals: worker.approvals(env, await shardsOf(env)) },
        {
          auth: {
            tokens: [
              {
                token: env.OPERATOR_TOKEN?.trim() || DEV_OPERATOR_TOKEN,
                principal: { id: 'operator' },
              },
            ],
          },
          basePath: '/operator/api',
        },
      );
      return operators.fetch(request);
    }
    return worker.fetch(request, env);
  },
};
