/**
 * Who is calling. Jobs, approvals and idempotency records are scoped to `principal.id`.
 *
 * @example
 * const principal: Principal = { id: 'hosted-service' };
 */
export interface Principal {
  readonly id: string;
  readonly [key: string]: unknown;
}
