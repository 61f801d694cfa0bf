import * as v from 'valibot';
import { refusalFor, unknownOptions } from './config-refusal.ts';
import { GatewayConfigError } from './gateway-config-error.ts';
import { MAX_TIMER_MS } from './limits.ts';

// Option schemas (valibot) and their one formatter: every public factory of the package checks
// its options through `assertOptions`, so each mistake reads `<factory>: <path> is <kind>: …`.

// Marks on an option schema's message: `expected…` alone reads `<path> is <kind>: expected…`;
// these two change how the formatter words it.
const FROM_ENV = '\u0000';
const WHOLE = '\u0001';

/**
 * An option schema's message for a string option an unset environment variable may leave
 * `undefined` or empty: the error then asks whether one is unset.
 *
 * @example
 * v.custom(isNonEmptyString, fromEnv('expected a non-empty string.'));
 */
export const fromEnv = (expected: string): string => FROM_ENV + expected;

/**
 * An option schema's message that is a whole sentence naming its own path (`auth has both tokens
 * and verify: …`): the error prints it after the factory's name as it is.
 *
 * @example
 * v.check(isUnique, whole('Duplicate action id "x".'));
 */
export const whole = (sentence: string): string => WHOLE + sentence;

/**
 * Checks `input` against an option schema and throws the first problem as the factory's
 * `GatewayConfigError` in the one message style: `<factory>: <path> is <kind>: <expected>`, the
 * path in `a.b[2].c` form (`root` when the input itself is wrong), never a configured value.
 *
 * @example
 * assertOptions(OptionsSchema, options, 'createGateway');
 * // GatewayConfigError: createGateway: auth.tokens[1] is undefined: is an environment variable unset? (expected a non-empty token string)
 */
export function assertOptions(
  schema: v.GenericSchema,
  input: unknown,
  factory: string,
  root = 'options',
): void {
  const result = /* @__PURE__ */ v.safeParse(schema, input, { abortEarly: true });
  const issue = result.issues?.[0];
  if (!issue) return;
  const message = issue.message;
  if (message.startsWith(WHOLE)) throw new GatewayConfigError(`${factory}: ${message.slice(1)}`);
  const path = (issue.path ?? [])
    .map(({ key }) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`))
    .join('')
    .replace(/^\./, '');
  const env = message.startsWith(FROM_ENV);
  refusalFor(factory)(path || root, issue.input, env ? message.slice(1) : message, env);
}

/**
 * An object schema for options: `expected` when the value is not a (non-array) object; a
 * required key that is absent gets the message its own schema gives `undefined`, so
 * `gateway.name is undefined` reads the same whether the key is missing or set to `undefined`.
 *
 * @example
 * const Gateway = optionsObject({ id: Text, name: Text }, 'expected { id, name }.');
 */
// @__NO_SIDE_EFFECTS__
export function optionsObject<const Entries extends v.ObjectEntries>(
  entries: Entries,
  expected: string,
): v.GenericSchema<Record<string, unknown>> {
  const absent = (issue: v.BaseIssue<unknown>): string => {
    const key = String(issue.path?.at(-1)?.key);
    const schema = entries[key] as v.GenericSchema | undefined;
    return (
      (schema && /* @__PURE__ */ v.safeParse(schema, undefined).issues?.[0].message) ?? expected
    );
  };
  return /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.custom<Record<string, unknown>>(isObject, expected),
    /* @__PURE__ */ v.looseObject(entries, absent),
  );
}

/**
 * A check that an object has no key outside `known`; `say` words the error from the unknown keys
 * (a {@link whole} sentence).
 *
 * @example
 * v.pipe(v.custom(isObject), onlyKeys(['a', 'b'], (keys) => `unknown option "${keys[0]}".`));
 */
// @__NO_SIDE_EFFECTS__
export function onlyKeys(
  known: readonly string[],
  say: (unknown: string[]) => string,
): v.GenericValidation<Record<string, unknown>> {
  return /* @__PURE__ */ v.check(
    (value: Record<string, unknown>) =>
      /* @__PURE__ */ Object.keys(value).every((key) => known.includes(key)),
    (issue) =>
      /* @__PURE__ */ whole(
        say(/* @__PURE__ */ Object.keys(issue.input).filter((key) => !known.includes(key))),
      ),
  );
}

/**
 * {@link optionsObject} that also refuses keys outside `entries` (a misspelt option would
 * otherwise silently keep its default), naming them, under `path` for nested options.
 *
 * @example
 * const Gateway = strictOptionsObject({ id: Text, name: Text }, 'expected { id, name }.', 'gateway');
 * // createGateway: gateway: unknown option "nmae" (known: id, name).
 */
// @__NO_SIDE_EFFECTS__
export function strictOptionsObject<const Entries extends v.ObjectEntries>(
  entries: Entries,
  expected: string,
  path?: string,
): v.GenericSchema<Record<string, unknown>> {
  const known = /* @__PURE__ */ Object.keys(entries);
  return /* @__PURE__ */ v.pipe(
    /* @__PURE__ */ v.custom<Record<string, unknown>>(isObject, expected),
    /* @__PURE__ */ onlyKeys(known, (keys) => unknownOptions(keys, known, path)),
    /* @__PURE__ */ optionsObject(entries, expected),
  );
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A non-array object: what an options object may be (a class instance too, e.g. a logger). */
export { isObject as isOptionsObject };

/** An object literal (or `Object.create(null)`), not a class instance such as a dispatcher. */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  isObject(value) && [Object.prototype, null].includes(Object.getPrototypeOf(value));

/** Timers hold at most 2^31-1 ms (≈ 24.8 days); longer ones fire at once. */
export const isTimerMs = (value: unknown): value is number =>
  typeof value === 'number' && value > 0 && value <= MAX_TIMER_MS;

/**
 * A schema from a test and the message (`expected …`) it gives a value that fails it.
 *
 * @example
 * const Url = is<string>((url) => URL.canParse(url as string), 'expected an absolute URL.');
 */
// @__NO_SIDE_EFFECTS__
export function is<T>(test: (value: unknown) => boolean, expected: string): v.GenericSchema<T> {
  return /* @__PURE__ */ v.custom<T>(test, expected);
}

/** An optional function. */
export const OptionalFunction: v.GenericSchema<((...args: never[]) => unknown) | undefined> =
  /* @__PURE__ */ v.optional(
    is<(...args: never[]) => unknown>((f) => typeof f === 'function', 'expected a function.'),
  );
/** What a duration option's message asks for (a function, so that an unused one tree-shakes). */
// @__NO_SIDE_EFFECTS__
export function timerMsText(): string {
  return `a positive number of milliseconds up to ${MAX_TIMER_MS}`;
}

// @__NO_SIDE_EFFECTS__
function timerMs(orOff: boolean): v.GenericSchema<number | undefined> {
  return v.optional(
    is<number>((ms) => (orOff && ms === 0) || isTimerMs(ms), `expected ${timerMsText()}.`),
  );
}
/** An optional duration in ms, above 0 and within what a timer holds. */
export const OptionalMs: v.GenericSchema<number | undefined> = /* @__PURE__ */ timerMs(false);
/** An optional duration in ms as {@link OptionalMs}, where `0` turns the timer off. */
export const OptionalMsOrOff: v.GenericSchema<number | undefined> = /* @__PURE__ */ timerMs(true);
/** An optional positive (safe) integer: every cap on what callers make us keep. */
export const OptionalPositiveInteger: v.GenericSchema<number | undefined> =
  /* @__PURE__ */ v.optional(
    /* @__PURE__ */ is<number>(
      (n) => Number.isSafeInteger(n) && (n as number) > 0,
      'expected a positive integer.',
    ),
  );

/**
 * A group of named caps (`limits`, `quotas`): an optional object literal of the names `defaults`
 * has, each a positive integer.
 *
 * @example
 * const LimitsSchema = capsSchema('limits', DEFAULT_LIMITS);
 */
// @__NO_SIDE_EFFECTS__
export function capsSchema(
  group: string,
  defaults: object,
): v.GenericSchema<Record<string, unknown> | undefined> {
  const known = /* @__PURE__ */ Object.keys(defaults);
  return /* @__PURE__ */ v.optional(
    /* @__PURE__ */ v.pipe(
      /* @__PURE__ */ is<Record<string, unknown>>(
        isPlainObject,
        `expected { ${known.join(', ')} }.`,
      ),
      /* @__PURE__ */ onlyKeys(
        known,
        ([name]) => `${group}.${name} is not a known ${group} option (known: ${known.join(', ')}).`,
      ),
      /* @__PURE__ */ v.record(/* @__PURE__ */ v.string(), OptionalPositiveInteger),
    ),
  );
}
