import type { Action } from '../actions/define-action.ts';
import type { AuthConfig } from '../auth/auth-config.ts';
import { createAuthenticator } from '../auth/bearer-auth.ts';
import type { Manifest } from '../contract/manifest.ts';
import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';
import { errorReply } from '../http/replies.ts';
import { buildManifest, inputJsonSchema } from '../manifest/build-manifest.ts';
import { createManifestRoute } from '../manifest/manifest-route.ts';
import { GatewayConfigError } from './gateway-config-error.ts';
import { HANDLE_CALL } from './handle-call.ts';
import { handleInvoke } from './invoke.ts';
import { consoleLogger, type GatewayLogger } from './logger.ts';
import { fromWebRequest, toWebResponse } from './web-call.ts';

/** Everything `createGateway` accepts. */
export interface GatewayOptions {
  /** Identity of the gateway in the manifest. Without `url`, the URL is taken from each request. */
  readonly gateway: { readonly id: string; readonly name: string; readonly url?: string };
  /** The workflow layer exposed through the gateway; defaults to the gateway's id and name. */
  readonly agent?: { readonly id: string; readonly name: string; readonly description?: string };
  readonly actions: readonly Action[];
  readonly auth: AuthConfig;
  /** Manifest version label, `YYYY-MM-DD`. Defaults to the UTC date the gateway was created. */
  readonly version?: string;
  /** Path prefix the gateway is mounted under, e.g. `/gateway`. Defaults to none. */
  readonly basePath?: string;
  /** Largest accepted request body in bytes. Defaults to 1 MiB. */
  readonly maxBodyBytes?: number;
  /** Where unexpected problems are reported. Defaults to `console`. */
  readonly logger?: GatewayLogger;
  /** Clock, for tests. Defaults to `Date.now`. */
  readonly now?: () => number;
}

/**
 * A gateway: one Web-standard `fetch` entry point serving the whole contract.
 *
 * @example
 * Deno.serve(gateway.fetch);
 */
export interface Gateway {
  /** Serves one request. Never rejects: every failure is an error-envelope response. */
  fetch(request: Request): Promise<Response>;
  /** The manifest document (with `gateway.url` empty when no URL was configured). */
  readonly manifest: Manifest;
}

const ACTION_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/i;
const VERSION = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;

function validateOptions(options: GatewayOptions): void {
  const fail = (message: string): never => {
    throw new GatewayConfigError(message);
  };
  if (!options || typeof options !== 'object') fail('createGateway: options are required.');
  if (!options.gateway?.id || !options.gateway?.name)
    fail('createGateway: gateway.id and gateway.name are required.');
  if (options.gateway.url !== undefined) {
    if (
      !URL.canParse(options.gateway.url) ||
      !/^https?:$/.test(new URL(options.gateway.url).protocol)
    ) {
      fail('createGateway: gateway.url must be an absolute http(s) URL.');
    }
  }
  const auth = options.auth as AuthConfig | undefined;
  if (!auth || (!('tokens' in auth) && !('verify' in auth))) {
    fail('createGateway: auth is required ({ tokens: [...] } or { verify(token) }).');
  } else if ('tokens' in auth) {
    if (!Array.isArray(auth.tokens) || auth.tokens.length === 0)
      fail('createGateway: auth.tokens must list at least one token.');
    for (const entry of auth.tokens) {
      const token = typeof entry === 'string' ? entry : entry?.token;
      if (typeof token !== 'string' || token.trim().length === 0 || token !== token.trim()) {
        fail(
          'createGateway: every auth token must be a non-empty string without surrounding spaces.',
        );
      }
    }
  } else if (typeof auth.verify !== 'function') {
    fail('createGateway: auth.verify must be a function.');
  }
  if (!Array.isArray(options.actions))
    fail('createGateway: actions must be an array of defineAction() results.');
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const action of options.actions) {
    if (!action || typeof action.run !== 'function')
      fail('createGateway: every action must come from defineAction().');
    if (!ACTION_ID.test(action.id)) fail(`Action "${action.id}": id must match ${ACTION_ID}.`);
    if (ids.has(action.id)) fail(`Duplicate action id "${action.id}".`);
    if (names.has(action.name)) fail(`Duplicate action name "${action.name}".`);
    ids.add(action.id);
    names.add(action.name);
    if (!Number.isFinite(action.timeoutMs) || action.timeoutMs <= 0)
      fail(`Action "${action.id}": timeoutMs must be a positive number.`);
    if (action.executionMode === 'async' || action.requiresApproval) {
      fail(
        `Action "${action.id}": async and approval actions need a job store, which this version does not provide yet.`,
      );
    }
  }
  if (options.version !== undefined && !VERSION.test(options.version))
    fail('createGateway: version must be a date, YYYY-MM-DD.');
  if (options.basePath !== undefined && !/^(\/[A-Za-z0-9._~-]+)+$/.test(options.basePath)) {
    fail('createGateway: basePath must look like "/prefix" (no trailing slash).');
  }
  if (
    options.maxBodyBytes !== undefined &&
    !(Number.isInteger(options.maxBodyBytes) && options.maxBodyBytes > 0)
  ) {
    fail('createGateway: maxBodyBytes must be a positive integer.');
  }
}

/**
 * Creates a gateway serving Gateway Contract v1 from a list of actions. The configuration is
 * checked now, and the manifest computed once; a mistake throws {@link GatewayConfigError}.
 *
 * @example
 * const gateway = createGateway({
 *   gateway: { id: 'acme', name: 'Acme back office', url: 'https://gateway.acme.example' },
 *   actions: [lookupAccount],
 *   auth: { tokens: [process.env.GATEWAY_TOKEN!] },
 * });
 * export default { fetch: gateway.fetch };
 */
export function createGateway(options: GatewayOptions): Gateway {
  validateOptions(options);
  const now = options.now ?? Date.now;
  const logger = options.logger ?? consoleLogger;
  const basePath = options.basePath ?? '';
  const actions = [...options.actions];
  const inputSchemas = actions.map(inputJsonSchema);
  const manifestInit = {
    version: options.version ?? new Date(now()).toISOString().slice(0, 10),
    gateway: { id: options.gateway.id, name: options.gateway.name, url: options.gateway.url ?? '' },
    agent: {
      id: options.agent?.id ?? options.gateway.id,
      name: options.agent?.name ?? options.gateway.name,
      description: options.agent?.description ?? '',
    },
    actions,
    capabilities: { asyncJobs: false, jobCallbacks: false, approvals: false },
    callbacks: { jobResults: false, approvals: false },
  };
  const manifest = buildManifest(manifestInit, inputSchemas);
  const manifestRoute = createManifestRoute(
    manifest,
    options.gateway.url === undefined ? basePath : undefined,
  );
  const authenticate = createAuthenticator(options.auth);
  const invokeOptions = {
    actionsById: new Map(actions.map((action) => [action.id, action])),
    actionsByName: new Map(actions.map((action) => [action.name, action])),
    maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
    logger,
    now,
  };

  const unauthorized = (): GatewayReply =>
    errorReply('unauthorized', undefined, { 'www-authenticate': 'Bearer' });

  async function route(call: GatewayCall): Promise<GatewayReply> {
    let path = call.path;
    if (basePath) {
      if (path !== basePath && !path.startsWith(`${basePath}/`)) return errorReply('not_found');
      path = path.slice(basePath.length);
    }
    let allowed: string;
    if (path === '/v1/invoke') allowed = 'POST';
    else if (path === '/v1/manifest') allowed = 'GET';
    else if (path.startsWith('/v1/jobs/') && jobIdOf(path) !== undefined) {
      allowed = path.endsWith('/cancel') ? 'POST' : 'GET';
    } else return errorReply('not_found');
    if (call.method !== allowed) {
      return errorReply('method_not_allowed', undefined, { allow: allowed });
    }

    const principal = await authenticate(call.header('authorization'), call.header.bind(call));
    if (!principal) return unauthorized();

    if (path === '/v1/invoke') return handleInvoke(call, principal, invokeOptions);
    if (path === '/v1/manifest') return manifestRoute(call);
    // No job store yet: no job exists, whoever asks.
    return errorReply('job_not_found');
  }

  async function handle(call: GatewayCall): Promise<GatewayReply> {
    try {
      return await route(call);
    } catch (error) {
      // Only a bug or a throwing auth.verify gets here: answer, never crash the server.
      logger.error('request failed', { path: call.path, error });
      return errorReply('internal_error');
    }
  }

  return {
    manifest,
    fetch: async (request: Request): Promise<Response> =>
      toWebResponse(await handle(fromWebRequest(request))),
    [HANDLE_CALL]: handle,
  } as Gateway;
}

/** The job id of `/v1/jobs/{id}` or `/v1/jobs/{id}/cancel`, or `undefined` for other shapes. */
function jobIdOf(path: string): string | undefined {
  const rest = path.slice('/v1/jobs/'.length);
  const raw = rest.endsWith('/cancel') ? rest.slice(0, -'/cancel'.length) : rest;
  if (raw.length === 0 || raw.includes('/')) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
