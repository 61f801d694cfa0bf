import * as v from 'valibot';
import { CallbackOptionsSchema } from '../callbacks/callback-options-schema.ts';
import { ALLOWED_HOST_EXPECTED, isAllowedHostEntry } from '../http/host-names.ts';
import { BASE_PATH } from '../http/routes.ts';
import { warnAboutUnpublishedChecks } from '../manifest/schema-lint.ts';
import { HooksSchema } from '../observe/hooks-schema.ts';
import { DEFAULT_LIMITS, DEFAULT_QUOTAS } from '../runtime/limits.ts';
import { consoleLogger } from '../runtime/logger.ts';
import {
  assertOptions,
  capsSchema,
  fromEnv,
  is,
  isOptionsObject,
  isTimerMs,
  OptionalFunction,
  OptionalMs,
  OptionalMsOrOff,
  OptionalPositiveInteger,
  optionsObject,
  strictOptionsObject,
  timerMsText,
  whole,
} from '../runtime/option-schemas.ts';
import type { GatewayOptions } from './gateway-options.ts';
import { AuthSchema } from './validate-auth.ts';

// The schema of `createGateway`'s options. Each message says what the caller should have passed;
// `assertOptions` puts the path and the kind of value received (never the value) before it.

const ACTION_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/i;
const VERSION = /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/;
const Text = /* @__PURE__ */ is<string>(
  (text) => typeof text === 'string' && text.trim() !== '',
  /* @__PURE__ */ fromEnv('expected a non-empty string.'),
);

/** An absolute http(s) URL without credentials. */
function isPublicHttpUrl(url: unknown): boolean {
  if (typeof url !== 'string' || !URL.canParse(url)) return false;
  const parsed = new URL(url);
  return /^https?:$/.test(parsed.protocol) && parsed.username === '' && parsed.password === '';
}

/** A `JobStore` or `RecordStore`: an object with each of the interface's methods. */
// @__NO_SIDE_EFFECTS__
function store(kind: string, names: string) {
  const methods = names.split(' ');
  const missing = (value: unknown) =>
    methods.filter((method) => !isOptionsObject(value) || typeof value[method] !== 'function');
  return /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.custom(
      (value) => missing(value).length === 0,
      (issue) => `expected a ${kind} (missing ${missing(issue.input).join(', ')}).`,
    ),
  );
}

const Action = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ is<{ id: string; timeoutMs: unknown }>(
    (a) => isOptionsObject(a) && typeof a.run === 'function' && typeof a.id === 'string',
    'expected a defineAction() result.',
  ),
  /* @__PURE__ */ v.check(
    (action) => ACTION_ID.test(action.id),
    (issue) => /* @__PURE__ */ whole(`Action "${issue.input.id}": id must match ${ACTION_ID}.`),
  ),
  /* @__PURE__ */ v.check(
    (action) => isTimerMs(action.timeoutMs),
    (issue) =>
      /* @__PURE__ */ whole(`Action "${issue.input.id}": timeoutMs must be ${timerMsText()}.`),
  ),
);

/** `actions`: defineAction() results, no two with one id or one name. */
const Actions = /* @__PURE__ */ v.pipe(
  /* @__PURE__ */ v.array(Action, 'expected an array of defineAction() results.'),
  /* @__PURE__ */ v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const seen = { id: new Set<unknown>(), name: new Set<unknown>() };
    for (const action of dataset.value as { id: string; name?: string }[]) {
      for (const field of ['id', 'name'] as const) {
        if (seen[field].has(action[field]))
          return addIssue({
            message: /* @__PURE__ */ whole(`Duplicate action ${field} "${action[field]}".`),
          });
        seen[field].add(action[field]);
      }
    }
  }),
);

const RECORD_STORE_METHODS = 'create get replace delete addToSet removeFromSet rangeOfSet close';
const LOGGER = 'expected { error(message, fields), warn?, info?, debug? }.';

// Every key of GatewayOptions with its schema: an option added to the interface without one here
// (or an entry here the interface lacks) fails the typecheck.
const ENTRIES = {
  gateway: /* @__PURE__ */ strictOptionsObject(
    {
      id: Text,
      name: Text,
      // Published in the manifest and in every job's URLs: credentials in it would be too.
      url: /* @__PURE__ */ v.optional(
        /* @__PURE__ */ is<string>(
          isPublicHttpUrl,
          /* @__PURE__ */ fromEnv('expected an absolute http(s) URL without credentials.'),
        ),
      ),
    },
    'expected { id, name, url? }.',
    'gateway',
  ),
  agent: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ strictOptionsObject(
      {
        id: Text,
        name: Text,
        description: /* @__PURE__ */ v.optional(/* @__PURE__ */ v.string('expected a string.')),
      },
      'expected { id, name, description? }.',
      'agent',
    ),
  ),
  auth: AuthSchema,
  actions: Actions,
  version: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ is<string>((s) => VERSION.test(String(s)), 'expected a date, YYYY-MM-DD.'),
  ),
  basePath: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ is<string>(
      (s) => BASE_PATH.test(String(s)),
      'expected "/prefix" (no trailing slash).',
    ),
  ),
  loopbackOnly: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.lazy((option) =>
      typeof option === 'boolean'
        ? /* @__PURE__ */ v.boolean()
        : /* @__PURE__ */ strictOptionsObject(
            {
              allowedHosts: /* @__PURE__ */ v.pipe(
                /* @__PURE__ */ is<unknown[]>(Array.isArray, 'expected a list of host names.'),
                /* @__PURE__ */ v.array(
                  /* @__PURE__ */ is<string>(isAllowedHostEntry, ALLOWED_HOST_EXPECTED),
                ),
              ),
            },
            'expected true, false or { allowedHosts: [...] }.',
            'loopbackOnly',
          ),
    ),
  ),
  idempotencyTtlMs: OptionalMs,
  approvals: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ strictOptionsObject(
      {
        policy: OptionalFunction,
        ttlMs: OptionalMs,
        retentionMs: OptionalMs,
        sweepIntervalMs: OptionalMsOrOff,
      },
      'expected { policy?, ttlMs?, retentionMs?, sweepIntervalMs? }.',
      'approvals',
    ),
  ),
  limits: /* @__PURE__ */ capsSchema('limits', DEFAULT_LIMITS),
  quotas: /* @__PURE__ */ capsSchema('quotas', DEFAULT_QUOTAS),
  maxBodyBytes: OptionalPositiveInteger,
  logger: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ optionsObject(
      {
        error: /* @__PURE__ */ is((error) => typeof error === 'function', LOGGER),
        warn: OptionalFunction,
        info: OptionalFunction,
        debug: OptionalFunction,
      },
      LOGGER,
    ),
  ),
  hooks: HooksSchema,
  tracer: /* @__PURE__ */ v.optional(
    /* @__PURE__ */ is(
      (tracer) => isOptionsObject(tracer) && typeof tracer.startSpan === 'function',
      'expected an OpenTelemetry Tracer (trace.getTracer(name)).',
    ),
  ),
  jobStore: /* @__PURE__ */ store('JobStore', 'create get update requestCancel onCancel close'),
  recordStore: /* @__PURE__ */ store('RecordStore', RECORD_STORE_METHODS),
  callbacks: /* @__PURE__ */ v.optional(CallbackOptionsSchema),
  waitUntil: OptionalFunction,
  now: OptionalFunction,
} satisfies { readonly [Key in keyof GatewayOptions]-?: v.GenericSchema };

const GatewayOptionsSchema = /* @__PURE__ */ strictOptionsObject(
  ENTRIES,
  'expected an options object.',
);

/**
 * Checks `createGateway`'s options against their schema before anything is built, also for
 * JavaScript callers: a mistake throws {@link GatewayConfigError} naming the exact path and the
 * kind of value received (`createGateway: auth.tokens[1] is undefined: …`), never a configured
 * value. Then warns about input checks the manifest cannot publish.
 *
 * @example
 * validateOptions({ gateway: { id: 'g', name: 'G' }, actions: [], auth: { tokens: [''] } });
 * // GatewayConfigError: createGateway: auth.tokens[0] is an empty string: is an environment variable unset? (expected a non-empty token string)
 */
export function validateOptions(options: GatewayOptions): void {
  assertOptions(GatewayOptionsSchema, options, 'createGateway');
  warnAboutUnpublishedChecks(options.actions, options.logger ?? consoleLogger);
}
