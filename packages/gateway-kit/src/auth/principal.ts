/**
 * Who is calling. Jobs, approvals and idempotency records are scoped to `principal.id`.
 *
 * @example
 * const principal: Principal = { id: 'hosted-service' };
 */
export interface Principal {
  /** Stable caller id: what jobs, approvals, idempotency records and quotas are scoped to. */
  readonly id: string;
  readonly [key: string]: unknown;
}
