// Every URL shape the gateway answers or hands out, in one place: the contract's four routes,
// the approval status route, and the links put into answers.

/**
 * What `basePath` (of `createGateway` and `createApprovalsHandler`) must look like: `/prefix`, one
 * or more unreserved segments, no trailing slash.
 */
export const BASE_PATH: RegExp = /^(\/[A-Za-z0-9._~-]+)+$/;

/** A route the gateway answers, with its one allowed method (and the id in its path). */
export type MatchedRoute =
  | { readonly route: 'invoke' | 'manifest'; readonly method: 'GET' | 'POST' }
  | { readonly route: 'job' | 'approval'; readonly method: 'GET'; readonly id: string }
  | { readonly route: 'cancel'; readonly method: 'POST'; readonly id: string };

/**
 * The route a path (below `basePath`) names; `undefined` for none.
 *
 * @example
 * matchRoute('/v1/jobs/job_1/cancel'); // { route: 'cancel', method: 'POST', id: 'job_1' }
 */
export function matchRoute(path: string): MatchedRoute | undefined {
  if (path === '/v1/invoke') return { route: 'invoke', method: 'POST' };
  if (path === '/v1/manifest') return { route: 'manifest', method: 'GET' };
  if (path.startsWith('/v1/jobs/')) {
    const rest = path.slice('/v1/jobs/'.length);
    if (rest.endsWith('/cancel')) {
      const id = decodeSegment(rest.slice(0, -'/cancel'.length));
      return id === undefined ? undefined : { route: 'cancel', method: 'POST', id };
    }
    const id = decodeSegment(rest);
    return id === undefined ? undefined : { route: 'job', method: 'GET', id };
  }
  if (path.startsWith('/v1/approvals/')) {
    const id = decodeSegment(path.slice('/v1/approvals/'.length));
    return id === undefined ? undefined : { route: 'approval', method: 'GET', id };
  }
  return undefined;
}

/**
 * The route template of a path: ids replaced by placeholders (span names, logs).
 *
 * @example
 * routeTemplate('/v1/jobs/job_1'); // '/v1/jobs/{jobId}'
 */
export function routeTemplate(path: string): string {
  return path
    .replace(/\/v1\/jobs\/[^/]+\/cancel$/, '/v1/jobs/{jobId}/cancel')
    .replace(/\/v1\/jobs\/[^/]+$/, '/v1/jobs/{jobId}')
    .replace(/\/v1\/approvals\/[^/]+$/, '/v1/approvals/{approvalId}');
}

/**
 * `{base}/v1/jobs/{id}` and its cancel URL.
 *
 * @example
 * jobUrls('https://gw.example', 'job_1').cancelUrl; // 'https://gw.example/v1/jobs/job_1/cancel'
 */
export function jobUrls(base: string, jobId: string): { statusUrl: string; cancelUrl: string } {
  const statusUrl = `${base}/v1/jobs/${encodeURIComponent(jobId)}`;
  return { statusUrl, cancelUrl: `${statusUrl}/cancel` };
}

/**
 * `{base}/v1/approvals/{id}`.
 *
 * @example
 * approvalUrl('https://gw.example', 'apr_1'); // 'https://gw.example/v1/approvals/apr_1'
 */
export function approvalUrl(base: string, approvalId: string): string {
  return `${base}/v1/approvals/${encodeURIComponent(approvalId)}`;
}

/** One decoded, non-empty path segment; `undefined` when empty, nested or badly encoded. */
function decodeSegment(raw: string): string | undefined {
  if (raw.length === 0 || raw.includes('/')) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}
