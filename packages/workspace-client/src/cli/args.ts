import { type ParseArgsOptionsConfig, parseArgs } from 'node:util';

/** A mistake in the command line: the bins print its message and the usage, and exit 2. */
export class UsageError extends Error {}

/**
 * `parseArgs` (strict) for the bins, with one-line messages naming the flag as typed
 * (`Unknown option --prot`, `Option -p needs a value`) thrown as `UsageError`, instead of
 * Node's `TypeError [ERR_PARSE_ARGS_…]`, whose texts are long and change between versions.
 * `typed` maps each option given to the flag as first typed (`yes` → `-y`), for later messages.
 *
 * @example
 * parseFlags(['--prot', '1'], { port: { type: 'string' } }, false);
 * // UsageError: Unknown option --prot
 */
export function parseFlags<const T extends ParseArgsOptionsConfig>(
  args: string[],
  options: T,
  allowPositionals: boolean,
): ReturnType<typeof parseArgs<{ args: string[]; options: T; allowPositionals: boolean }>> & {
  typed: ReadonlyMap<string, string>;
} {
  // A lenient pass lists what was typed; every case the strict pass refuses is named here.
  const { tokens } = parseArgs({
    args,
    options,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  const typed = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind === 'positional' && !allowPositionals)
      throw new UsageError(`Unexpected argument "${token.value}"`);
    if (token.kind !== 'option') continue;
    const flag = token.rawName;
    if (!Object.hasOwn(options, token.name)) throw new UsageError(`Unknown option ${flag}`);
    if (!typed.has(token.name)) typed.set(token.name, flag);
    const takesValue = options[token.name]?.type === 'string';
    // A value like `--host` after `--port` is a forgotten value, as Node's strict mode reads it.
    if (
      takesValue &&
      (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))
    )
      throw new UsageError(`Option ${flag} needs a value`);
    if (!takesValue && token.value !== undefined)
      throw new UsageError(`Option ${flag} takes no value`);
  }
  try {
    return { ...parseArgs({ args, options, allowPositionals, strict: true }), typed };
  } catch (error) {
    // Not expected after the checks above; still a usage error, never a stack trace.
    throw new UsageError((error as Error).message);
  }
}
