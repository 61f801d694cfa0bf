import * as v from 'valibot';
import { checkKeys, refuse } from '../client/validate-options.ts';
import { SharedAgentInputSchema } from '../schemas/agent.ts';
import { DebriefInputSchema } from '../schemas/debrief.ts';
import { toIssues } from '../schemas/issues.ts';
import { SharedSkillInputSchema } from '../schemas/skill.ts';
import { slugify } from '../schemas/slugify.ts';
import { corsHeaders, LOCAL_ORIGINS, type OriginPolicy, originAllowed, preflight } from './cors.ts';
import { PREVIEW_HEADERS, renderDebrief, renderDebriefList } from './preview.ts';
import { BodyTooLargeError, readLimited } from './read-limited.ts';
import { errorResponse, jsonResponse } from './responses.ts';

/** A failure the emulator answers instead of handling the next matching request(s). */
export interface EmulatorFault {
  /** HTTP status to answer, e.g. 503 or 429. */
  status: number;
  /** How many matching requests fail. Default 1. */
  times?: number | undefined;
  /** Only requests with this method (e.g. `'POST'`). Default: any. */
  method?: string | undefined;
  /** Only requests whose path below `/api/v1/org` starts with this, e.g. `'/debriefs'`. */
  path?: string | undefined;
  /** Extra response headers, e.g. `{ 'retry-after': '2' }`. */
  headers?: Record<string, string> | undefined;
  /** Response body; default is an error envelope naming the status. */
  body?: unknown;
}

/** One request the emulator received (the credential is not recorded). */
export interface RecordedRequest {
  /** HTTP method of the request, e.g. `POST`. */
  readonly method: string;
  /** Path below `/api/v1/org`, e.g. `/skills/pricing`. */
  readonly path: string;
  /** Status answered. */
  readonly status: number;
}

/** Contents of one workspace, as stored (copies). */
export interface WorkspaceSnapshot {
  /** The stored shared skills. */
  skills: Record<string, unknown>[];
  /** The stored shared agents. */
  agents: Record<string, unknown>[];
  /** The stored debriefs. */
  debriefs: Record<string, unknown>[];
}

/** Options of `createWorkspaceEmulator`. */
export interface WorkspaceEmulatorOptions {
  /** Clock used for `createdAt` / `updatedAt`. Default `() => new Date()`. */
  now?: (() => Date) | undefined;
  /**
   * Path the API root sits under, for clients whose `baseUrl` has a path (e.g. `'/tenant-a'`
   * serves `/tenant-a/api/v1/org/...`). Default `''`: the API is at `/api/v1/org`.
   */
  basePath?: string | undefined;
  /**
   * Browser origins allowed to call the emulator (CORS): exact origins, patterns, or a test.
   * Default: pages on this machine (`http(s)://localhost|127.0.0.1|[::1]`, any port). A request
   * with another `Origin` gets `403 origin_not_allowed` without CORS headers; requests without
   * `Origin` (servers, scripts) are not affected.
   */
  allowedOrigins?: OriginPolicy | undefined;
  /** Largest request body read, in bytes; above it `413 payload_too_large`. Default 1 MiB. */
  maxBodyBytes?: number | undefined;
  /** Most objects per collection (skills, agents, debriefs) of a workspace. Default 1000. */
  maxItems?: number | undefined;
  /** Most workspaces (distinct keys) kept. Default 1000. */
  maxWorkspaces?: number | undefined;
  /**
   * Most bytes of stored objects over all workspaces. Default 64 MiB. An object counts as its
   * JSON in UTF-8 plus 16 bytes per JSON value and 256 per object, so many tiny objects reach
   * the budget as their memory would.
   */
  maxStoredBytes?: number | undefined;
  /**
   * Serve the debrief preview pages under `{basePath}/_preview/` (a list of stored debriefs, and
   * one page per debrief showing it as presented). Default `true`.
   */
  preview?: boolean | undefined;
  /**
   * Host names (as in the `Host` header, without port) the emulator answers besides
   * `localhost`, `127.0.0.1`, `[::1]` and the host of the URL it is reached at: a deliberate setup
   * such as a name in `/etc/hosts` or a proxy on this machine. Applies to the preview, and to the
   * API when the emulator is served on a loopback address. Default none.
   */
  allowedHosts?: readonly string[] | undefined;
}

const FACTORY = 'createWorkspaceEmulator';

/** Every option of `createWorkspaceEmulator` (typed: a new option cannot be left out). */
const EMULATOR_KEYS = /* @__PURE__ */ Object.keys({
  now: 1,
  basePath: 1,
  allowedOrigins: 1,
  maxBodyBytes: 1,
  maxItems: 1,
  maxWorkspaces: 1,
  maxStoredBytes: 1,
  preview: 1,
  allowedHosts: 1,
} satisfies { readonly [K in keyof WorkspaceEmulatorOptions]-?: 1 });

/**
 * True when the `Host` header (if any) names this machine or the URL's own host. The preview
 * lists every workspace's debriefs, so a page that re-binds its own domain name to 127.0.0.1
 * (DNS rebinding) must not be able to read it.
 */
function localHost(request: Request, url: URL, allowedHosts: ReadonlySet<string>): boolean {
  const host = request.headers.get('host');
  if (host === null) return true;
  const name = host.replace(/:\d+$/, '').toLowerCase();
  return ['localhost', '127.0.0.1', '[::1]', url.hostname].includes(name) || allowedHosts.has(name);
}

/**
 * True when the emulator is served on a loopback address: the Node server (and
 * `svc-workspace-emulator`) builds request URLs from the address it listens on, so a loopback
 * URL host means a loopback server, which DNS rebinding can reach.
 */
function servedOnLoopback(url: URL): boolean {
  const name = url.hostname.toLowerCase();
  return name === 'localhost' || name === '[::1]' || /^127(\.\d{1,3}){3}$/.test(name);
}

/** Most requests `emulator.requests` keeps (the oldest are dropped). */
const MAX_RECORDED = 1000;

/**
 * Bytes a stored object is counted as against `maxStoredBytes`: its JSON in UTF-8, plus 16 per
 * JSON value (each property and array element is a pointer, and often an object, in memory) and
 * 256 per object (its id, timestamps and entries in the emulator's maps). Measured on Node 24,
 * tiny skills filling a 10 MiB budget took 12.2 MiB of heap when counted as their JSON alone (they
 * overfilled it 2.4 times), an array of one-letter strings 13 bytes per element (counted 20):
 * many tiny objects reach the budget about when their memory does.
 */
function storedSize(row: Row): number {
  let values = 0;
  const json = JSON.stringify(row, (_key, value: unknown) => {
    values += 1;
    return value;
  });
  return new TextEncoder().encode(json).byteLength + 16 * values + 256;
}

/**
 * A stateful, in-memory implementation of the workspace API as a Web-standard handler.
 * Each bearer key selects its own isolated workspace; any non-empty key is accepted.
 */
export interface WorkspaceEmulator {
  /**
   * Answers one request (any origin). Only paths starting with `{basePath}/api/v1/org` are
   * routed; anything else is `404 route_not_found`.
   */
  handle(request: Request): Promise<Response>;
  /** Queues a failure for the next matching request(s). */
  failNext(fault: EmulatorFault): void;
  /** A copy of what the workspace selected by `key` holds. */
  workspace(key: string): WorkspaceSnapshot;
  /** Requests received so far, oldest first (the last 1000). */
  readonly requests: readonly RecordedRequest[];
  /** Forgets every workspace, queued fault and recorded request. */
  reset(): void;
}

type Row = Record<string, unknown>;
interface Workspace {
  skills: Map<string, Row>;
  agents: Map<string, Row>;
  debriefs: Map<string, Row>;
}

const PREFIX = '/api/v1/org';

/**
 * Creates an in-memory workspace API. Use it through `handle` (any runtime), the msw
 * handlers in `@svc/workspace-client/mock`, or the HTTP server in
 * `@svc/workspace-client/emulator/node` (also the `svc-workspace-emulator` bin).
 *
 * Behaviour where the contract is silent (see docs/workspace-emulator.md): bodies are
 * validated with this package's writer schemas (422 with `error.details.issues`; a body not
 * sent as `application/json` is 415), only paths starting with `{basePath}/api/v1/org` are
 * routed, upserts
 * answer 201 when created and 200 when replaced with the saved object, deletes answer 204,
 * lists are bare arrays, errors use `{ error: { code, message } }`, every answer has an
 * `x-request-id`, and CORS preflights are answered.
 *
 * @example
 * ```ts
 * const emulator = createWorkspaceEmulator();
 * const client = createWorkspaceClient({
 *   baseUrl: 'http://emulator.local',
 *   apiKey: 'wk_test_example',
 *   fetch: (input, init) => emulator.handle(new Request(input, init)),
 * });
 * await client.skills.upsert({ name: 'Pricing', instructions: 'Quote list prices.' });
 * emulator.workspace('wk_test_example').skills[0]?.slug; // 'pricing'
 * ```
 */
export function createWorkspaceEmulator(options: WorkspaceEmulatorOptions = {}): WorkspaceEmulator {
  if (typeof options !== 'object' || options === null)
    refuse('options', options, 'expected an options object.', FACTORY);
  checkKeys(options, EMULATOR_KEYS, FACTORY);
  const now = options.now ?? (() => new Date());
  const trimmed = (options.basePath ?? '').replace(/\/+$/, '');
  const root = `${trimmed === '' || trimmed.startsWith('/') ? '' : '/'}${trimmed}${PREFIX}`;
  const allowedOrigins = options.allowedOrigins ?? LOCAL_ORIGINS;
  for (const [index, name] of (options.allowedHosts ?? []).entries()) {
    if (typeof name !== 'string' || !/^[a-z0-9.-]+$|^\[[0-9a-f:.]+\]$/i.test(name))
      refuse(`allowedHosts[${index}]`, name, 'expected a host name.', FACTORY);
  }
  const allowedHosts = new Set((options.allowedHosts ?? []).map((name) => name.toLowerCase()));
  const maxBodyBytes = options.maxBodyBytes ?? 1024 * 1024;
  const maxItems = options.maxItems ?? 1000;
  const maxWorkspaces = options.maxWorkspaces ?? 1000;
  const maxStoredBytes = options.maxStoredBytes ?? 64 * 1024 * 1024;
  // Caps on what callers make the emulator keep: positive integers (NaN would disable a cap).
  for (const [name, value] of Object.entries({
    maxBodyBytes,
    maxItems,
    maxWorkspaces,
    maxStoredBytes,
  })) {
    if (!Number.isSafeInteger(value) || value < 1)
      refuse(name, value, 'expected a positive integer.', FACTORY);
  }
  /** Size (`storedSize`) of every stored row, and their total. */
  const sizes = new WeakMap<Row, number>();
  let storedBytes = 0;
  const previewRoot = `${root.slice(0, -PREFIX.length)}/_preview`;
  const workspaces = new Map<string, Workspace>();
  let faults: (EmulatorFault & { remaining: number })[] = [];
  const requests: RecordedRequest[] = [];
  let counter = 0;

  const workspaceFor = (key: string): Workspace | undefined => {
    let found = workspaces.get(key);
    if (found === undefined) {
      if (workspaces.size >= maxWorkspaces) return undefined;
      found = { skills: new Map(), agents: new Map(), debriefs: new Map() };
      workspaces.set(key, found);
    }
    return found;
  };

  const takeFault = (method: string, path: string): EmulatorFault | undefined => {
    const fault = faults.find(
      (candidate) =>
        (candidate.method === undefined || candidate.method.toUpperCase() === method) &&
        (candidate.path === undefined || path.startsWith(candidate.path)),
    );
    if (fault === undefined) return undefined;
    fault.remaining -= 1;
    if (fault.remaining <= 0) faults = faults.filter((candidate) => candidate !== fault);
    return fault;
  };

  /** Stores `input` under `key` with its id and timestamps; `undefined` when over the byte budget. */
  const upsert = (
    table: Map<string, Row>,
    key: string,
    input: Row,
  ): { row: Row; created: boolean } | undefined => {
    const previous = table.get(key);
    const stamp = now().toISOString();
    const row: Row = {
      ...structuredClone(input),
      id: previous?.id ?? `${counter.toString(36)}${Math.random().toString(36).slice(2, 10)}`,
      createdAt: previous?.createdAt ?? stamp,
      updatedAt: stamp,
    };
    const size = storedSize(row);
    const growth = size - (previous === undefined ? 0 : (sizes.get(previous) ?? 0));
    if (storedBytes + growth > maxStoredBytes) return undefined;
    table.set(key, row);
    sizes.set(row, size);
    storedBytes += growth;
    return { row: structuredClone(row), created: previous === undefined };
  };

  async function route(request: Request, path: string, workspace: Workspace): Promise<Response> {
    const method = request.method.toUpperCase();
    const [, resource, rawKey, ...rest] = path.split('/');
    const collections = {
      skills: workspace.skills,
      agents: workspace.agents,
      debriefs: workspace.debriefs,
    };
    if (resource === undefined || !(resource in collections) || rest.length > 0 || rawKey === '') {
      return errorResponse(404, 'route_not_found', `No route for ${method} ${root}${path}`);
    }
    const name = resource as keyof typeof collections;
    const table = collections[name];
    const allowed = rawKey === undefined ? 'GET, POST' : name === 'debriefs' ? 'GET' : 'DELETE';
    if (!allowed.split(', ').includes(method)) {
      return errorResponse(
        405,
        'method_not_allowed',
        `${method} is not supported on ${root}${path}`,
        {
          allow: allowed,
        },
      );
    }
    if (rawKey !== undefined) {
      let key: string;
      try {
        key = decodeURIComponent(rawKey);
      } catch {
        // Malformed percent-encoding names no stored key.
        return errorResponse(404, 'not_found', `No ${name.slice(0, -1)} with this key`);
      }
      const found = table.get(key);
      if (found === undefined) {
        return errorResponse(404, 'not_found', `No ${name.slice(0, -1)} with key "${key}"`);
      }
      if (method === 'GET') return jsonResponse(200, found);
      table.delete(key);
      storedBytes -= sizes.get(found) ?? 0;
      return new Response(null, { status: 204 });
    }
    if (method === 'GET') return jsonResponse(200, [...table.values()]);

    const mediaType = (request.headers.get('content-type') ?? '').split(';')[0]?.trim();
    if (mediaType?.toLowerCase() !== 'application/json') {
      return errorResponse(
        415,
        'unsupported_media_type',
        'The request body must be JSON sent with "Content-Type: application/json"',
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(await readLimited(request, maxBodyBytes));
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        return errorResponse(
          413,
          'payload_too_large',
          `The request body exceeds ${maxBodyBytes} bytes`,
        );
      }
      return errorResponse(400, 'invalid_json', 'The request body is not valid JSON');
    }
    const schemas: Record<typeof name, v.GenericSchema> = {
      skills: SharedSkillInputSchema,
      agents: SharedAgentInputSchema,
      debriefs: DebriefInputSchema,
    };
    const result = v.safeParse(schemas[name], body);
    if (!result.success) {
      const issues = toIssues(result.issues);
      return errorResponse(
        422,
        'validation_failed',
        `Invalid ${name.slice(0, -1)}`,
        {},
        { issues },
      );
    }
    const input = result.output as Row;
    let key: string;
    if (name === 'debriefs') key = input.externalId as string;
    else key = (input.slug as string | undefined) ?? slugify(input.name as string);
    if (key === '') {
      return errorResponse(
        422,
        'validation_failed',
        'Cannot derive a slug from this name; send a slug',
        {},
        {
          issues: [{ path: 'slug', message: 'Required because no slug can be derived from name' }],
        },
      );
    }
    if (!table.has(key) && table.size >= maxItems) {
      return errorResponse(
        409,
        'quota_exceeded',
        `This workspace already holds ${maxItems} ${name}; delete some first`,
      );
    }
    const saved = upsert(table, key, name === 'debriefs' ? input : { ...input, slug: key });
    if (saved === undefined) {
      return errorResponse(
        409,
        'quota_exceeded',
        `The emulator already stores close to ${maxStoredBytes} bytes; delete something first`,
      );
    }
    return jsonResponse(saved.created ? 201 : 200, saved.row);
  }

  /** The preview pages. Workspaces are numbered by creation; keys are never shown. */
  function previewPage(path: string): Response {
    const numbered = [...workspaces.values()].map((workspace, index) => ({
      workspace,
      n: index + 1,
    }));
    const [, n, rawId, ...rest] = path.split('/');
    if (n === undefined || n === '') {
      const items = numbered.flatMap(({ workspace, n: number }) =>
        [...workspace.debriefs.values()].map((debrief) => ({
          href: `${previewRoot}/${number}/${encodeURIComponent(String(debrief.externalId))}`,
          workspace: `workspace ${number}`,
          debrief,
        })),
      );
      return new Response(renderDebriefList(items), { headers: PREVIEW_HEADERS });
    }
    let debrief: Row | undefined;
    try {
      const id = decodeURIComponent(rawId ?? '');
      if (rest.length === 0) debrief = numbered[Number(n) - 1]?.workspace.debriefs.get(id);
    } catch {
      // Malformed percent-encoding names no debrief.
    }
    if (debrief === undefined) {
      return errorResponse(404, 'not_found', 'No such debrief in the preview');
    }
    return new Response(
      renderDebrief(debrief, { href: `${previewRoot}/`, label: 'stored debriefs' }),
      {
        headers: PREVIEW_HEADERS,
      },
    );
  }

  return {
    get requests() {
      return requests;
    },
    failNext(fault) {
      faults.push({ ...fault, remaining: fault.times ?? 1 });
    },
    workspace(key) {
      const workspace = workspaces.get(key);
      return structuredClone({
        skills: [...(workspace?.skills.values() ?? [])],
        agents: [...(workspace?.agents.values() ?? [])],
        debriefs: [...(workspace?.debriefs.values() ?? [])],
      });
    },
    reset() {
      workspaces.clear();
      storedBytes = 0;
      faults = [];
      requests.length = 0;
    },
    async handle(request) {
      counter += 1;
      const requestId = `req_emu_${counter.toString(36).padStart(6, '0')}`;
      const url = new URL(request.url);
      const origin = request.headers.get('origin');
      const allowed = origin === null || originAllowed(origin, allowedOrigins);
      // The API root must start the path: `/api/v1/organization` or `/x/api/v1/org` are
      // not it.
      const inside = url.pathname === root || url.pathname.startsWith(`${root}/`);
      const path = inside ? url.pathname.slice(root.length) || '/' : url.pathname;
      const method = request.method.toUpperCase();
      let response: Response;
      const previewPath =
        options.preview !== false &&
        (url.pathname === previewRoot || url.pathname.startsWith(`${previewRoot}/`))
          ? url.pathname.slice(previewRoot.length)
          : undefined;
      if (previewPath !== undefined && allowed && (method === 'GET' || method === 'HEAD')) {
        response = localHost(request, url, allowedHosts)
          ? previewPage(previewPath)
          : errorResponse(
              403,
              'host_not_allowed',
              'The preview is served only to localhost, 127.0.0.1, [::1] or the address the emulator was reached at',
            );
      } else if (inside && servedOnLoopback(url) && !localHost(request, url, allowedHosts)) {
        // DNS rebinding: a page whose name resolves to this machine is same-origin with it.
        response = errorResponse(
          403,
          'host_not_allowed',
          'The emulator on a loopback address answers only requests addressed to localhost, 127.0.0.1, [::1] or the address it listens on (see allowedHosts)',
        );
      } else if (!allowed) {
        response = errorResponse(
          403,
          'origin_not_allowed',
          'This origin is not allowed to call the emulator (see allowedOrigins)',
        );
      } else if (method === 'OPTIONS') response = preflight(request);
      else if (!inside) {
        response = errorResponse(404, 'route_not_found', `No route for ${method} ${url.pathname}`);
      } else {
        const fault = takeFault(method, path);
        const auth = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
        if (fault !== undefined) {
          response =
            fault.body === undefined
              ? errorResponse(
                  fault.status,
                  `http_${fault.status}`,
                  `Injected failure ${fault.status}`,
                  fault.headers,
                )
              : jsonResponse(fault.status, fault.body, fault.headers);
        } else if (auth?.[1] === undefined) {
          response = errorResponse(
            401,
            'unauthorized',
            'Missing or malformed "Authorization: Bearer <workspace key>" header',
            { 'www-authenticate': 'Bearer' },
          );
        } else {
          const workspace = workspaceFor(auth[1]);
          response =
            workspace === undefined
              ? errorResponse(
                  409,
                  'quota_exceeded',
                  `The emulator already holds ${maxWorkspaces} workspaces (one per key)`,
                )
              : await route(request, path, workspace);
        }
      }
      requests.push({ method, path, status: response.status });
      if (requests.length > MAX_RECORDED) requests.shift();
      const headers = new Headers(response.headers);
      headers.set('x-request-id', requestId);
      if (allowed) {
        for (const [name, value] of Object.entries(corsHeaders(origin))) headers.set(name, value);
      }
      return new Response(response.body, { status: response.status, headers });
    },
  };
}
