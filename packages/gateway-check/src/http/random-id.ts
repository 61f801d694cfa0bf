/**
 * `<prefix>-<32 hex digits>` from `crypto.getRandomValues`, which (unlike `crypto.randomUUID`)
 * browsers also offer on plain-http pages.
 */
export function randomId(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return `${prefix}-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}
