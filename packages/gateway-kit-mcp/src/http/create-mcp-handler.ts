import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { Gateway } from '@svc/gateway-kit';
import { type Caller, forwardedHeaders } from '../calls/gateway-request.ts';
import { createMcpServer } from '../create-mcp-server.ts';
import {
  CALL_OPTION_KEYS,
  callSettings,
  checkGateway,
  checkOptionKeys,
  checkWhole,
  type McpCallOptions,
  refuse,
} from '../options.ts';
import { type LoopbackOnly, loopbackHostCheck } from './loopback-host.ts';
import { envelope, jsonRpcError } from './replies.ts';
import { limitRequestsInFlight, MAX_REQUESTS_IN_FLIGHT } from './requests-in-flight.ts';

/** Everything `createMcpHandler` accepts. */
export interface McpHandlerOptions extends McpCallOptions {
  /** Path of the MCP endpoint (Streamable HTTP: POST, GET and DELETE). Defaults to `/mcp`. */
  readonly path?: string;
  /** Budgets of the MCP sessions the handler keeps (each holds an SDK server and transport). */
  readonly sessions?: {
    /** Sessions in all. Defaults to 1 000; over it: `503 mcp_sessions_full` with `Retry-After`. */
    readonly max?: number;
    /**
     * Sessions per caller: per principal the gateway authenticates (every token and spelling of
     * the `Authorization` header that names it counts as one caller). Defaults to 16; over it:
     * `429 quota_exceeded` with `Retry-After`.
     */
    readonly perCaller?: number;
    /**
     * A session with no request and no tool call in flight (nor running task) for this long is
     * closed (its client gets `404` and initializes again). Defaults to 10 minutes.
     */
    readonly idleMs?: number;
  };
  /** Largest MCP request body in bytes (`413` over it). Defaults to 256 KiB, the gateway's default. */
  readonly maxBodyBytes?: number;
  /**
   * DNS-rebinding protection, for a server listening on a loopback address (`127.0.0.1`, `::1`):
   * a web page whose name an attacker points at 127.0.0.1 is same-origin with it and may send
   * any request. With `true`, requests whose `Host` — or `Origin`, when sent — names another host
   * than `localhost`, `*.localhost`, `127.x.x.x` or `[::1]` are answered `403` with a JSON-RPC
   * error, before authentication; `{ allowedHosts }` also answers the names a deliberate setup
   * uses (exact names, or `.example.test` for a domain and its subdomains). Defaults to `false`:
   * a `fetch` handler cannot see the address it is served on, so turn it on when it is loopback.
   *
   * @example
   * createMcpHandler(gateway, { loopbackOnly: hostname === '127.0.0.1' });
   */
  readonly loopbackOnly?: LoopbackOnly;
}

/**
 * The MCP endpoint: a Web-standard `fetch` handler, served next to `gateway.fetch` by the same
 * adapters.
 */
export interface McpHandler {
  /** Serves one request to {@link McpHandler.path}; any other path is `404 not_found`. */
  fetch(request: Request): Promise<Response>;
  /** The endpoint's path, e.g. `/mcp`. */
  readonly path: string;
  /** Closes every session (in-flight tool calls are aborted; their jobs cancelled). */
  close(): Promise<void>;
}

interface Session {
  /** The principal that opened the session: its counter, and the only one that may use it. */
  readonly principalId: string;
  readonly server: Server;
  readonly transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  calls: number;
}

// Every option, and every key of `sessions`: a key added to the interface without one here (or
// one here the interface lacks) fails the typecheck, so a new option cannot be forgotten.
const KNOWN = Object.keys({
  path: true,
  sessions: true,
  maxBodyBytes: true,
  loopbackOnly: true,
  ...CALL_OPTION_KEYS,
} satisfies { readonly [Key in keyof McpHandlerOptions]-?: true });
const KNOWN_SESSIONS = Object.keys({
  max: true,
  perCaller: true,
  idleMs: true,
} satisfies { readonly [Key in keyof NonNullable<McpHandlerOptions['sessions']>]-?: true });

const DEFAULT_SESSIONS = { max: 1_000, perCaller: 16, idleMs: 600_000 };
const DEFAULT_MAX_BODY_BYTES = 256 * 1024;

/**
 * Serves the gateway's actions as MCP tools over Streamable HTTP (the MCP SDK's Web-standard
 * transport, with sessions). Every MCP request is authenticated by the gateway itself (its bearer
 * tokens or `verify`); a session stays bound to the principal that opened it (and counts against
 * that principal's sessions, whatever spelling of its token), and each tool call is sent through
 * the gateway's `POST /v1/invoke` with the caller's headers — the same principal, validation,
 * limits, quotas, approvals and hooks as any invoke.
 *
 * @example
 * const mcp = createMcpHandler(gateway);
 * Deno.serve((request) =>
 *   new URL(request.url).pathname === mcp.path ? mcp.fetch(request) : gateway.fetch(request),
 * );
 */
export function createMcpHandler(gateway: Gateway, options: McpHandlerOptions = {}): McpHandler {
  // Also for JavaScript callers: a missing gateway would otherwise fail on the first request, and
  // a misspelt option silently keep its default.
  checkGateway('createMcpHandler', gateway, 'createMcpHandler(gateway, options?)');
  checkOptionKeys(
    'createMcpHandler',
    'options',
    options,
    KNOWN,
    'expected { path?, sessions?, maxBodyBytes?, … }.',
  );
  const settings = callSettings(options, 'createMcpHandler');
  const path = options.path ?? '/mcp';
  if (typeof path !== 'string' || !path.startsWith('/'))
    refuse('createMcpHandler', 'path', path, 'expected a path starting with "/", e.g. "/mcp".');
  const sessionOptions = options.sessions ?? {};
  checkOptionKeys(
    'createMcpHandler',
    'sessions',
    sessionOptions,
    KNOWN_SESSIONS,
    'expected { max?, perCaller?, idleMs? }.',
  );
  // Key by key: a key present but `undefined` (`{ max: config.max }`) takes its default, as an
  // absent one does; spread, it would be `undefined` and lift the budget.
  const limits = {
    max: sessionOptions.max ?? DEFAULT_SESSIONS.max,
    perCaller: sessionOptions.perCaller ?? DEFAULT_SESSIONS.perCaller,
    idleMs: sessionOptions.idleMs ?? DEFAULT_SESSIONS.idleMs,
  };
  checkWhole('createMcpHandler', 'sessions.max', limits.max, 1, 1_000_000);
  checkWhole('createMcpHandler', 'sessions.perCaller', limits.perCaller, 1, 1_000_000);
  checkWhole('createMcpHandler', 'sessions.idleMs', limits.idleMs, 1_000, 86_400_000);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  checkWhole('createMcpHandler', 'maxBodyBytes', maxBodyBytes, 1_024, 64 * 1024 * 1024);
  const retryAfterSeconds = Math.ceil(limits.idleMs / 1000);
  const hostAllowed = loopbackHostCheck(options.loopbackOnly);
  const sessions = new Map<string, Session>();
  // Sessions being opened (their initialize in flight) count against the budgets too, so
  // concurrent initializes cannot overshoot them. Keyed, like sessions, by principal id.
  const opening = new Map<string, number>();
  let openingTotal = 0;

  function closeIdle(now: number): void {
    for (const [id, session] of sessions) {
      if (session.calls === 0 && now - session.lastSeen > limits.idleMs) {
        sessions.delete(id);
        void session.server.close();
      }
    }
  }

  async function openSession(
    request: Request,
    principalId: string,
    token: string,
  ): Promise<Response> {
    const now = Date.now();
    closeIdle(now);
    if (sessions.size + openingTotal >= limits.max) {
      return envelope(
        503,
        'mcp_sessions_full',
        'Too many MCP sessions are open.',
        retryAfterSeconds,
      );
    }
    let own = opening.get(principalId) ?? 0;
    for (const session of sessions.values()) if (session.principalId === principalId) own += 1;
    if (own >= limits.perCaller) {
      return envelope(
        429,
        'quota_exceeded',
        `At most ${limits.perCaller} MCP sessions per caller are open at once; close one (DELETE) or wait.`,
        retryAfterSeconds,
      );
    }
    const origin = new URL(request.url).origin;
    let session: Session | undefined;
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      maxRequestBodySize: maxBodyBytes,
      onsessioninitialized: (id) => {
        if (session) sessions.set(id, session);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    const server = createMcpServer(gateway, settings, {
      callerOf: (extra): Caller => ({
        origin,
        headers: forwardedHeaders(extra.requestInfo?.headers ?? {}),
      }),
      onCallStart: () => {
        if (session) session.calls += 1;
      },
      onCallEnd: () => {
        if (session) {
          session.calls -= 1;
          session.lastSeen = Date.now();
        }
      },
    });
    session = { principalId, server, transport, lastSeen: now, calls: 0 };
    openingTotal += 1;
    opening.set(principalId, (opening.get(principalId) ?? 0) + 1);
    try {
      await server.connect(transport);
      limitRequestsInFlight(transport, MAX_REQUESTS_IN_FLIGHT);
      const response = await transport.handleRequest(request, { authInfo: authInfo(token) });
      if (!transport.sessionId) await server.close();
      return response;
    } finally {
      openingTotal -= 1;
      const left = (opening.get(principalId) ?? 1) - 1;
      if (left === 0) opening.delete(principalId);
      else opening.set(principalId, left);
    }
  }

  return {
    path,
    async fetch(request) {
      if (new URL(request.url).pathname !== path) {
        return envelope(404, 'not_found', 'No such route.');
      }
      if (hostAllowed && !hostAllowed(request)) {
        return jsonRpcError(
          403,
          'Forbidden: this server listens on loopback and answers only requests addressed to a loopback host (Host and Origin).',
        );
      }
      const authenticated = await gateway.authenticate(request);
      if (authenticated.refusal) return authenticated.refusal;
      const principalId = authenticated.principal.id;
      const token = (request.headers.get('authorization') ?? '').replace(/^bearer\s+/i, '').trim();
      const sessionId = request.headers.get('mcp-session-id');
      if (sessionId === null) {
        if (request.method !== 'POST') {
          return jsonRpcError(400, 'Bad Request: Mcp-Session-Id header is required');
        }
        return openSession(request, principalId, token);
      }
      const session = sessions.get(sessionId);
      // Another caller's session is as unknown as a closed one.
      if (!session || session.principalId !== principalId)
        return jsonRpcError(404, 'Session not found');
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, { authInfo: authInfo(token) });
    },
    async close() {
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.all(open.map((session) => session.server.close()));
    },
  };
}

/** What the SDK's handlers see as `extra.authInfo`: the bearer token the gateway accepted. */
function authInfo(token: string) {
  return { token, clientId: 'gateway-bearer', scopes: [] as string[] };
}
