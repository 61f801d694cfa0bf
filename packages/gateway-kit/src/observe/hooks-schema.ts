import * as v from 'valibot';
import {
  is,
  isOptionsObject,
  OptionalFunction,
  OptionalMs,
  onlyKeys,
} from '../runtime/option-schemas.ts';
import type { GatewayHookName } from './hooks.ts';

const HOOK_NAMES = [
  'onInvokeReceived',
  'onInvokeAnswered',
  'onJobStateChanged',
  'onApprovalRequested',
  'onApprovalDecided',
  'onCallbackDelivered',
  'onCallbackFailed',
] as const satisfies readonly GatewayHookName[];

/** The schema of `createGateway`'s `hooks`: known hook names only, each a function; `slowHookMs` a duration. */
// @__NO_SIDE_EFFECTS__
function hooksSchema(): v.GenericSchema<Record<string, unknown> | undefined> {
  return v.optional(
    v.pipe(
      is<Record<string, unknown>>(isOptionsObject, `expected { ${HOOK_NAMES.join('?, ')}? }.`),
      onlyKeys(
        [...HOOK_NAMES, 'slowHookMs'],
        ([name]) => `hooks.${name} is not a known hook (known: ${HOOK_NAMES.join(', ')}).`,
      ),
      v.looseObject({
        ...Object.fromEntries(HOOK_NAMES.map((name) => [name, OptionalFunction])),
        slowHookMs: OptionalMs,
      }),
    ),
  );
}

/** See {@link hooksSchema}. */
export const HooksSchema: v.GenericSchema<Record<string, unknown> | undefined> =
  /* @__PURE__ */ hooksSchema();
