import type { Gateway } from '../gateway/create-gateway.ts';

/** A response as the test client returns it: status, headers and the JSON body (or `null`). */
export interface TestResponse<TBody = unknown> {
  /** HTTP status of the response. */
  readonly status: number;
  /** Headers of the response. */
  readonly headers: Headers;
  /** The response body parsed as JSON; `null` for an empty body. */
  readonly body: TBody;
}

/** Options of {@link createTestClient}. */
export interface TestClientOptions {
  /** Bearer token sent with every request; omit to send none. */
  readonly token?: string;
  /**
   * Base URL the requests are addressed to, path included: a gateway made with
   * `basePath: '/gateway'` is reached at `http://gateway.test/gateway`. Defaults to
   * `http://gateway.test`.
   */
  readonly baseUrl?: string;
}

/** The in-process client returned by {@link createTestClient}. */
export interface TestClient {
  /** Any request, with the client's token unless `init.headers` sets `authorization`. */
  request(path: string, init?: RequestInit): Promise<TestResponse>;
  /** `GET /v1/manifest`. */
  manifest(): Promise<TestResponse>;
  /** POSTs `body` (serialised as JSON) to `/v1/invoke`. */
  invoke(body: unknown): Promise<TestResponse>;
  /** `GET /v1/jobs/{jobId}`. */
  job(jobId: string): Promise<TestResponse>;
  /** `POST /v1/jobs/{jobId}/cancel`. */
  cancel(jobId: string): Promise<TestResponse>;
}

/**
 * Calls a gateway in-process through `gateway.fetch` — no server, no port.
 *
 * @example
 * const client = createTestClient(gateway, { token: 'test-token' });
 * const { status, body } = await client.invoke(invokeBody('lookup-account', { accountId: 'acc_42' }));
 */
export function createTestClient(gateway: Gateway, options: TestClientOptions = {}): TestClient {
  // Paths are appended to the base URL's own path (`new URL('/v1/…', base)` would drop it).
  const baseUrl = (options.baseUrl ?? 'http://gateway.test').replace(/\/+$/, '');
  const request = async (path: string, init: RequestInit = {}): Promise<TestResponse> => {
    const headers = new Headers(init.headers);
    if (options.token !== undefined && !headers.has('authorization')) {
      headers.set('authorization', `Bearer ${options.token}`);
    }
    const response = await gateway.fetch(
      new Request(path.startsWith('/') ? `${baseUrl}${path}` : new URL(path, baseUrl), {
        ...init,
        headers,
      }),
    );
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? JSON.parse(text) : null,
    };
  };
  return {
    request,
    manifest: () => request('/v1/manifest'),
    invoke: (body) =>
      request('/v1/invoke', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    job: (jobId) => request(`/v1/jobs/${encodeURIComponent(jobId)}`),
    cancel: (jobId) => request(`/v1/jobs/${encodeURIComponent(jobId)}/cancel`, { method: 'POST' }),
  };
}
