import { type Refuse, refusalFor, timerMs } from '@svc/gateway-kit/store';

/** The longest wait `setTimeout` holds: a longer one fires at once. */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The option checks of one factory (`new DurableJobStore`, `gatewayObject`…): each throws the
 * kit's `GatewayConfigError` in its one style, `<factory>: <option> is <kind>: expected …`.
 */
export function optionChecks(factory: string): {
  readonly refuse: Refuse;
  /** A positive integer option: every cap, every duration. */
  positiveInteger(name: string, value: number): number;
  /** A duration a timer waits for: a positive integer of ms that `setTimeout` holds. */
  timerMs(name: string, value: number): number;
  /** A table name prefix: letters, digits and `_` only (it is spliced into SQL). */
  tablePrefix(prefix: string, name?: string): string;
  /** A store's `now` option: a function (its clock, in epoch ms), or `Date.now` when not given. */
  clock(now: unknown): () => number;
} {
  const refuse = refusalFor(factory);
  return {
    refuse,
    positiveInteger(name, value) {
      if (!Number.isSafeInteger(value) || value < 1)
        refuse(name, value, 'expected a positive integer.');
      return value;
    },
    timerMs: (name, value) => timerMs(refuse, name, value),
    tablePrefix(prefix, name = 'prefix') {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix))
        refuse(
          name,
          prefix,
          'expected a letter or _, then letters, digits and _ (it names tables).',
        );
      return prefix;
    },
    clock(now) {
      // Called on every read and write: a wrong value would surface there, not here.
      if (now === undefined) return () => Date.now();
      if (typeof now !== 'function') refuse('now', now, 'expected a function returning epoch ms.');
      return now as () => number;
    },
  };
}

/** Bytes of a string as UTF-8. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}
