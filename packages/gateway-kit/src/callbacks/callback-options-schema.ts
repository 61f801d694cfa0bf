import * as v from 'valibot';
import { unknownOptions } from '../runtime/config-refusal.ts';
import {
  fromEnv,
  is,
  isPlainObject,
  OptionalFunction,
  onlyKeys,
  whole,
} from '../runtime/option-schemas.ts';
import { CallbackConfigError } from './callback-config-error.ts';
import type { CallbackDispatcherOptions } from './callback-dispatcher.ts';
import { validateDeliverySettings } from './deliver-callback.ts';

// Every option of the dispatcher the gateway creates: a key missing here (or one the interface
// lacks) fails the typecheck. A misspelt `signingSecret` would otherwise send unsigned callbacks.
const KNOWN = /* @__PURE__ */ Object.keys({
  signingSecret: true,
  urlPolicy: true,
  resolveHost: true,
  fetch: true,
  maxAttempts: true,
  attemptTimeoutMs: true,
  baseDelayMs: true,
  maxDelayMs: true,
  onAttempt: true,
  sleep: true,
  random: true,
  now: true,
  maxConcurrentAttempts: true,
  maxConcurrentPerDestination: true,
  maxPendingDeliveries: true,
  maxPendingBytes: true,
  maxConcurrentAttemptsPerPrincipal: true,
  maxPendingPerPrincipal: true,
  maxPendingBytesPerPrincipal: true,
  circuitFailureThreshold: true,
  circuitCooldownMs: true,
  circuitMaxDestinations: true,
  onDeliveryFailed: true,
  waitUntil: true,
  wrapFetch: true,
  outbox: true,
} satisfies { readonly [Key in keyof CallbackDispatcherOptions]-?: true });

/**
 * The schema of `createGateway`'s `callbacks` option: `false`, or the options of the dispatcher
 * the gateway creates (an object literal: a `CallbackDispatcher` instance is refused with what to
 * pass instead). Delivery settings keep the dispatcher's own messages, under `callbacks.`.
 */
export const CallbackOptionsSchema: v.GenericSchema = /* @__PURE__ */ v.lazy((callbacks) =>
  callbacks === false
    ? /* @__PURE__ */ v.literal(false)
    : /* @__PURE__ */ v.pipe(
        /* @__PURE__ */ is<Record<string, unknown>>(
          isPlainObject,
          'expected false or an options object such as { signingSecret, urlPolicy } (the gateway creates its own dispatcher).',
        ),
        /* @__PURE__ */ onlyKeys(KNOWN, (keys) => unknownOptions(keys, KNOWN, 'callbacks')),
        /* @__PURE__ */ v.looseObject({
          // Present but undefined: an unset environment variable would send unsigned callbacks.
          signingSecret: /* @__PURE__ */ v.exactOptional(
            /* @__PURE__ */ is<string>(
              (secret) => typeof secret === 'string' && secret.trim() !== '',
              /* @__PURE__ */ fromEnv('expected "whsec_<base64>".'),
            ),
          ),
          urlPolicy: /* @__PURE__ */ v.optional(
            /* @__PURE__ */ is(isPlainObject, 'expected { allowInsecureLoopback?, allowHosts? }.'),
          ),
          resolveHost: OptionalFunction,
          fetch: OptionalFunction,
          onDeliveryFailed: OptionalFunction,
          onAttempt: OptionalFunction,
        }),
        /* @__PURE__ */ v.rawCheck(({ dataset, addIssue }) => {
          try {
            validateDeliverySettings(dataset.value as object);
          } catch (error) {
            if (!(error instanceof CallbackConfigError)) throw error;
            // Same message (it never contains the value), with the option's full path.
            addIssue({ message: /* @__PURE__ */ whole(`callbacks.${error.message}`) });
          }
        }),
      ),
);
