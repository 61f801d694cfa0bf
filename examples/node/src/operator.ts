import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApprovalDecisionError, type ApprovalStatus, type Gateway } from '@svc/gateway-kit';

/** Options of {@link createOperatorHandler}. */
export interface OperatorOptions {
  /** Bearer token the approvals page must send (`OPERATOR_TOKEN`). */
  readonly token: string;
}

/** Serves the request and returns `true` when it is under `/operator`; `false` leaves it to others. */
export type OperatorHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

const PAGE_DIR = new URL('../operator/', import.meta.url);
const ASSETS: Record<string, { type: string; file: string }> = {
  '/operator/': { type: 'text/html; charset=utf-8', file: 'index.html' },
  '/operator/app.js': { type: 'text/javascript; charset=utf-8', file: 'app.js' },
  '/operator/app.css': { type: 'text/css; charset=utf-8', file: 'app.css' },
};
// The page only talks to its own origin and never runs inline code (approval inputs come from callers).
const PAGE_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};
const STATUSES: readonly ApprovalStatus[] = ['pending', 'approved', 'denied', 'expired'];
const MAX_BODY_BYTES = 16 * 1024;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'cache-control': 'no-store',
    ...headers,
  });
  res.end(JSON.stringify(body));
}

function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  headers?: Record<string, string>,
): void {
  sendJson(res, status, { error: { code, message, retryable: false } }, headers);
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > MAX_BODY_BYTES) {
        reject(new RangeError('too large'));
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

/**
 * The approvals page of the demo gateway: a static page at `/operator/` and a JSON API under
 * `/operator/api/approvals` (list, decide) over `gateway.approvals`, protected by a bearer token.
 */
export function createOperatorHandler(gateway: Gateway, options: OperatorOptions): OperatorHandler {
  const expected = digest(options.token);
  const assets = new Map(
    Object.entries(ASSETS).map(([path, { type, file }]) => [
      path,
      { type, body: readFileSync(new URL(file, PAGE_DIR)) },
    ]),
  );
  const authorized = (req: IncomingMessage): boolean => {
    const match = /^Bearer ([^\s]+)$/i.exec(req.headers.authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]!), expected);
  };

  async function api(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    if (!authorized(req)) {
      sendError(res, 401, 'unauthorized', 'Send the operator token as a bearer token.', {
        'www-authenticate': 'Bearer realm="operator"',
      });
      return;
    }
    const query = new URL(req.url ?? '/', 'http://operator.invalid').searchParams;
    if (path === '/operator/api/approvals') {
      if (req.method !== 'GET') {
        sendError(res, 405, 'method_not_allowed', 'Use GET.', { allow: 'GET' });
        return;
      }
      const status = (query.get('status') ?? 'pending') as ApprovalStatus;
      if (!STATUSES.includes(status)) {
        sendError(res, 400, 'invalid_status', `status must be one of ${STATUSES.join(', ')}.`);
        return;
      }
      const limit = Number(query.get('limit') ?? 50);
      const cursor = query.get('cursor') ?? undefined;
      if (!Number.isInteger(limit) || limit < 1 || limit > 500) {
        sendError(res, 400, 'invalid_limit', 'limit must be an integer from 1 to 500.');
        return;
      }
      let page: Awaited<ReturnType<typeof gateway.approvals.list>>;
      try {
        page = await gateway.approvals.list({ status, limit, ...(cursor ? { cursor } : {}) });
      } catch (error) {
        if (!(error instanceof RangeError)) throw error;
        sendError(res, 400, 'invalid_cursor', 'cursor must be a nextCursor this API returned.');
        return;
      }
      // One page per call: the gateway reads an index, so a page costs what it returns.
      sendJson(res, 200, {
        approvals: [...page],
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      });
      return;
    }
    const decision = /^\/operator\/api\/approvals\/([^/]+)\/decision$/.exec(path);
    if (!decision) {
      sendError(res, 404, 'not_found', 'No such operator route.');
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, 405, 'method_not_allowed', 'Use POST.', { allow: 'POST' });
      return;
    }
    let body: unknown;
    try {
      body = await readJson(req);
    } catch {
      sendError(res, 400, 'invalid_body', `Send a JSON body of at most ${MAX_BODY_BYTES} bytes.`);
      return;
    }
    const { approved, note } = (body ?? {}) as { approved?: unknown; note?: unknown };
    if (
      typeof approved !== 'boolean' ||
      (note !== undefined && (typeof note !== 'string' || note.length > 1000))
    ) {
      sendError(
        res,
        422,
        'invalid_decision',
        'Send { "approved": true | false, "note"?: string }.',
      );
      return;
    }
    try {
      const approvalId = decodeURIComponent(decision[1]!);
      const decided = await gateway.approvals.decide(approvalId, {
        approved,
        decidedBy: 'operator',
        ...(note ? { note } : {}),
      });
      sendJson(res, 200, decided);
    } catch (error) {
      if (error instanceof ApprovalDecisionError) {
        sendError(res, error.code === 'approval_not_found' ? 404 : 409, error.code, error.message);
      } else if (error instanceof URIError) {
        sendError(res, 404, 'approval_not_found', 'No such approval.');
      } else throw error;
    }
  }

  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/operator' && !path.startsWith('/operator/')) return false;
    if (path.startsWith('/operator/api/')) {
      api(req, res, path).catch((error: unknown) => {
        console.error('operator API failed', error);
        if (!res.headersSent) sendError(res, 500, 'internal_error', 'The operator API failed.');
      });
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendError(res, 405, 'method_not_allowed', 'Use GET.', { allow: 'GET, HEAD' });
      return true;
    }
    if (path === '/operator') {
      res.writeHead(308, { location: '/operator/' }).end();
      return true;
    }
    const asset = assets.get(path);
    if (!asset) {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found');
      return true;
    }
    res.writeHead(200, { 'content-type': asset.type, ...PAGE_HEADERS });
    res.end(req.method === 'HEAD' ? undefined : asset.body);
    return true;
  };
}
