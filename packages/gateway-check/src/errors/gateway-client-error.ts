import type { GatewayError } from '../contract/gateway-error.ts';
import type { RuleId } from '../contract/rules.ts';
import { GatewayCheckError, isGatewayCheckError } from './gateway-check-error.ts';

/**
 * Why a call to a gateway did not give a usable answer:
 * - `gateway`: the gateway answered an error envelope (`status`, `error` tell which);
 * - `contract`: the gateway answered something the contract forbids (`rule` names the rule);
 * - `network`, `timeout`, `aborted`, `too-large`: no (complete) answer arrived.
 *
 * @example
 * const retry = (kind: GatewayClientErrorKind) => kind === 'network' || kind === 'timeout';
 */
export type GatewayClientErrorKind =
  | 'gateway'
  | 'contract'
  | 'network'
  | 'timeout'
  | 'aborted'
  | 'too-large';

/**
 * What a {@link GatewayClientError} is made of.
 *
 * @example
 * new GatewayClientError({ kind: 'timeout', message: 'no answer within 10000 ms' });
 */
export interface GatewayClientErrorInit {
  /** Why the call gave no usable answer. */
  readonly kind: GatewayClientErrorKind;
  /** The error's message; must not contain tokens. */
  readonly message: string;
  /** HTTP status of the answer, when there was one. */
  readonly status?: number;
  /** The gateway's error (kind `gateway`). */
  readonly error?: GatewayError;
  /** The contract rule the gateway broke (kind `contract`). */
  readonly rule?: RuleId;
  /** What did not match, one line per issue (paths and expectations, never values). */
  readonly issues?: readonly string[];
}

/**
 * A call to a gateway gave no usable answer: thrown by the client, and by checks that could not
 * reach the gateway. A {@link GatewayCheckError}, like every error of the package. Messages never
 * contain tokens.
 *
 * @example
 * try { await client.manifest(); } catch (e) { if (isGatewayClientError(e) && e.kind === 'contract') console.log(e.rule); }
 */
export class GatewayClientError extends GatewayCheckError {
  override readonly name: string = 'GatewayClientError';
  /** Why the call gave no usable answer. */
  readonly kind: GatewayClientErrorKind;
  /** HTTP status of the answer, when there was one. */
  readonly status: number | undefined;
  /** The gateway's error (kind `gateway`). */
  readonly error: GatewayError | undefined;
  /** The contract rule the gateway broke (kind `contract`). */
  readonly rule: RuleId | undefined;
  /** What did not match, one line per issue (paths and expectations, never values); may be empty. */
  readonly issues: readonly string[];

  constructor(init: GatewayClientErrorInit) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status;
    this.error = init.error;
    this.rule = init.rule;
    this.issues = init.issues ?? [];
  }
}

/**
 * Whether `value` is a {@link GatewayClientError} (also across bundled copies of this package).
 *
 * @example
 * if (isGatewayClientError(error) && error.kind === 'gateway') console.log(error.error?.code);
 */
export function isGatewayClientError(value: unknown): value is GatewayClientError {
  return (
    value instanceof GatewayClientError ||
    (isGatewayCheckError(value) && value.name === 'GatewayClientError' && 'kind' in value)
  );
}
