/**
 * Who is calling. Jobs, approvals and idempotency records are scoped to `principal.id`.
 *
 * @example
 * const principal: Principal = { id: 'hosted-service' };
 */
export interface Principal {
  /**
   * Stable caller id: what jobs, approvals, idempotency records and quotas are scoped to. 1 to
   * 512 characters: the stores index it (PostgreSQL refuses index entries over 2 704 bytes).
   */
  readonly id: string;
  readonly [key: string]: unknown;
}

/** The longest principal id, in characters (UTF-16 code units, as `string.length` counts). */
export const MAX_PRINCIPAL_ID_LENGTH = 512;

/**
 * Whether `id` can be a principal's id: a string of 1 to {@link MAX_PRINCIPAL_ID_LENGTH}
 * characters.
 *
 * @example
 * isPrincipalId('hosted-service'); // true
 */
export function isPrincipalId(id: unknown): boolean {
  return typeof id === 'string' && id.length > 0 && id.length <= MAX_PRINCIPAL_ID_LENGTH;
}
