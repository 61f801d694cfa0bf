import * as v from 'valibot';
import { MAX_TIMER_MS } from '../../runtime/limits.ts';
import { is } from '../../runtime/option-schemas.ts';
import { ALLOWED_HOST_EXPECTED, isAllowedHostEntry } from './loopback-host.ts';
import type { NodeHandlerOptions } from './node-handler-options.ts';

// Option schemas of the Node adapters (`toNodeHandler`, `serve`, `fastifyGateway`), checked
// through `assertOptions`: `<factory>: <option> is <kind>: expected …`.

/** An optional `true` / `false` (a string such as `'false'` from an environment variable is not one). */
export const OptionalBoolean: v.GenericSchema<boolean | undefined> = /* @__PURE__ */ v.optional(
  /* @__PURE__ */ is<boolean>((flag) => typeof flag === 'boolean', 'expected true or false.'),
);

/**
 * An optional whole number of milliseconds from 0 to what a timer holds (`0` has the meaning the
 * option documents); Node's server timeouts take whole numbers only.
 */
export const OptionalWholeMsOrZero: v.GenericSchema<number | undefined> =
  /* @__PURE__ */ v.optional(
    /* @__PURE__ */ is<number>(
      (ms) => Number.isSafeInteger(ms) && (ms as number) >= 0 && (ms as number) <= MAX_TIMER_MS,
      `expected a whole number of milliseconds from 0 to ${MAX_TIMER_MS}.`,
    ),
  );

/** An optional non-negative integer of bytes (`0` has the meaning the option documents). */
const OptionalBytesOrZero: v.GenericSchema<number | undefined> = /* @__PURE__ */ v.optional(
  /* @__PURE__ */ is<number>(
    (bytes) => Number.isSafeInteger(bytes) && (bytes as number) >= 0,
    'expected a non-negative integer.',
  ),
);

/** The drain limits of `NodeHandlerOptions`: bytes (`0` drops at once) and a duration. */
export const DRAIN_ENTRIES: {
  readonly drainMaxBytes: v.GenericSchema<number | undefined>;
  readonly drainTimeoutMs: v.GenericSchema<number | undefined>;
} = { drainMaxBytes: OptionalBytesOrZero, drainTimeoutMs: OptionalWholeMsOrZero };

/** `allowedHosts`: `true`, or a list of host names (`.domain` for a domain and its subdomains). */
export const OptionalAllowedHosts: v.GenericSchema = /* @__PURE__ */ v.optional(
  /* @__PURE__ */ v.lazy((allowed) =>
    allowed === true
      ? /* @__PURE__ */ v.literal(true)
      : /* @__PURE__ */ v.pipe(
          /* @__PURE__ */ is<unknown[]>(Array.isArray, 'expected true or a list of host names.'),
          /* @__PURE__ */ v.array(
            /* @__PURE__ */ is<string>(isAllowedHostEntry, ALLOWED_HOST_EXPECTED),
          ),
        ),
  ),
);

/** Every option of `toNodeHandler` with its schema. */
export const NODE_HANDLER_ENTRIES: {
  readonly [Key in keyof NodeHandlerOptions]-?: v.GenericSchema;
} = {
  trustProxy: OptionalBoolean,
  pinCallbackAddresses: OptionalBoolean,
  drainMaxBytes: OptionalBytesOrZero,
  drainTimeoutMs: OptionalWholeMsOrZero,
  allowedHosts: OptionalAllowedHosts,
};
