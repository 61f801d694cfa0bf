import { GatewayConfigError } from './gateway-config-error.ts';
import { MAX_TIMER_MS } from './limits.ts';

/**
 * What a configuration value is, for an error message: its kind, never its content (tokens and
 * secrets pass through here). `undefined`, `an empty string`, `a CallbackDispatcher instance`…
 * A number is shown (`the number 0`), unless `hidden`: an option holding a token, a secret or a
 * URL, where a number is a secret read as one (`token: 8675309123` in a YAML file).
 *
 * @example
 * describeKind(process.env.UNSET); // 'undefined'
 * describeKind(8675309123, true); // 'a number'
 */
export function describeKind(value: unknown, hidden = false): string {
  if (value === null || value === undefined) return String(value);
  switch (typeof value) {
    case 'string':
      if (value === '') return 'an empty string';
      return value.trim() === value ? 'a string' : 'a string with surrounding spaces';
    case 'number':
      if (Number.isNaN(value)) return 'NaN';
      return hidden ? 'a number' : `the number ${value}`;
    case 'boolean':
      return String(value);
    case 'function':
      return 'a function';
    case 'object': {
      if (Array.isArray(value)) return value.length === 0 ? 'an empty array' : 'an array';
      const name = (Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null)
        ?.constructor?.name;
      return name && name !== 'Object' ? `a ${name} instance` : 'an object';
    }
    default:
      return `a ${typeof value}`;
  }
}

/**
 * Throws the `GatewayConfigError` `<factory>: <path> is <kind>: <what to do>`. For a string option
 * (`fromEnv`: a token, a secret, a URL), an undefined or empty value most likely comes from an
 * unset environment variable: says so; and a number there is not shown (it may be the secret).
 */
export type Refuse = (path: string, value: unknown, expected: string, fromEnv?: boolean) => never;

/**
 * The one message style of every public factory's option errors, bound to the factory's name.
 *
 * @example
 * const refuse = refusalFor('createApprovalsHandler');
 * refuse('basePath', 'x/', 'expected "/prefix" (no trailing slash).');
 * // GatewayConfigError: createApprovalsHandler: basePath is a string: expected "/prefix" (no trailing slash).
 */
export function refusalFor(factory: string): Refuse {
  return (path, value, expected, fromEnv = false) => {
    const unset =
      value === undefined || value === '' || (Array.isArray(value) && value.length === 0);
    const hint =
      fromEnv && unset
        ? `is an environment variable unset? (${expected.replace(/\.$/, '')})`
        : expected;
    throw new GatewayConfigError(`${factory}: ${path} is ${describeKind(value, fromEnv)}: ${hint}`);
  };
}

/**
 * For store adapters: checks a duration a timer waits for, a positive integer of ms up to
 * 2 147 483 647 (what `setTimeout` holds; a longer wait fires at once), or with `orOff` also `0`
 * (the timer is off). Refuses anything else with `refuse` (from {@link refusalFor}).
 *
 * @example
 * const refuse = refusalFor('new XStore');
 * const sweepMs = timerMs(refuse, 'sweepIntervalMs', options.sweepIntervalMs ?? 5_000, true);
 */
export function timerMs(refuse: Refuse, name: string, value: number, orOff = false): number {
  if (orOff && value === 0) return value;
  if (!Number.isSafeInteger(value) || value < 1 || value > MAX_TIMER_MS)
    refuse(
      name,
      value,
      `expected ${orOff ? '0 (off) or ' : ''}a positive integer of milliseconds up to ${MAX_TIMER_MS}.`,
    );
  return value;
}

/**
 * The sentence for keys outside `known`: `unknown option "x" (known: a, b).`, after `path: ` when
 * the options are nested.
 *
 * @example
 * unknownOptions(['nmae'], ['id', 'name'], 'gateway'); // 'gateway: unknown option "nmae" (known: id, name).'
 */
export function unknownOptions(keys: string[], known: readonly string[], path?: string): string {
  const list = keys.map((key) => `"${key}"`).join(', ');
  const sentence = `unknown option${keys.length > 1 ? 's' : ''} ${list} (known: ${known.join(', ')}).`;
  return path === undefined ? sentence : `${path}: ${sentence}`;
}

/**
 * For store adapters: refuses an options value that is not an object, and option names the
 * factory does not know (a misspelt `leaseMss` would otherwise silently keep its default, a
 * misspelt URL option connect to the default server), naming every unknown one and listing the
 * known ones, never a value (an unknown option may hold a secret). Type `known` against the
 * options interface (`Object.keys({ … } satisfies Record<keyof Options, true>)`) so that a new
 * option cannot be left out.
 *
 * @example
 * checkOptionNames('new XStore', { maxJob: 5 }, ['url', 'maxJobs']);
 * // GatewayConfigError: new XStore: unknown option "maxJob" (known: url, maxJobs).
 */
export function checkOptionNames(
  factory: string,
  options: unknown,
  known: readonly string[],
): void {
  const refuse: Refuse = refusalFor(factory);
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    refuse('options', options, 'expected an options object.');
  const unknown = Object.keys(options).filter((key) => !known.includes(key));
  if (unknown.length > 0)
    throw new GatewayConfigError(`${factory}: ${unknownOptions(unknown, known)}`);
}
