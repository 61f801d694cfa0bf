import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createApprovalsHandler, type Gateway } from '@svc/gateway-kit';
import { toNodeHandler } from '@svc/gateway-kit/node';

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

/**
 * The approvals page of the demo gateway: a static page at `/operator/` over the packaged
 * approvals API (`createApprovalsHandler`) at `/operator/api/approvals` (list, get, decide),
 * protected by the operator's own bearer token; decisions are recorded as made by `operator`.
 */
export function createOperatorHandler(gateway: Gateway, options: OperatorOptions): OperatorHandler {
  const assets = new Map(
    Object.entries(ASSETS).map(([path, { type, file }]) => [
      path,
      { type, body: readFileSync(new URL(file, PAGE_DIR)) },
    ]),
  );
  const api = toNodeHandler(
    createApprovalsHandler(gateway, {
      auth: { tokens: [{ token: options.token, principal: { id: 'operator' } }] },
      basePath: '/operator/api',
    }),
  );

  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path !== '/operator' && !path.startsWith('/operator/')) return false;
    if (path.startsWith('/operator/api/')) {
      api(req, res);
      return true;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
      res.end('Use GET.');
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
