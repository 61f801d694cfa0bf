/**
 * A URL's origin only, for logs, spans and per-destination budgets: paths and queries may carry
 * tokens. `'invalid-url'` for what does not parse. Internal.
 *
 * @example
 * originOf('https://hooks.example/cb?token=secret'); // 'https://hooks.example'
 */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid-url';
  }
}
