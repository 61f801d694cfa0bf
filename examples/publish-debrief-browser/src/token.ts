/** What the page's backend answers on its token route. */
export interface TokenResponse {
  token: string;
  /** ISO time after which the token is no longer valid. */
  expiresAt: string;
}

/**
 * The safe pattern for browsers: never embed a workspace key in a page. Ask your own backend
 * (which authenticates the user, e.g. with its session cookie) for a short-lived token, and hand
 * this function to the client as `apiKey`. The client calls it before every attempt; the token
 * is reused until 30 seconds before it expires.
 */
export function shortLivedToken(tokenUrl: string): () => Promise<string> {
  let cached: { token: string; expiresAt: number } | undefined;
  return async () => {
    if (cached && cached.expiresAt - Date.now() > 30_000) return cached.token;
    const response = await fetch(tokenUrl, { method: 'POST', credentials: 'same-origin' });
    if (!response.ok) throw new Error(`The token route answered ${response.status}.`);
    const body = (await response.json()) as TokenResponse;
    cached = { token: body.token, expiresAt: Date.parse(body.expiresAt) };
    return body.token;
  };
}
