/**
 * The two functions of a test runner the conformance suites need. Vitest, Jest, Bun and
 * `node:test` all fit; assertions are built in, so no `expect` is needed.
 *
 * @example
 * import { describe, it } from 'vitest';
 * const test: ConformanceTestApi = { describe, it };
 */
export interface ConformanceTestApi {
  /** Registers a group of tests; `body` registers its tests synchronously. */
  readonly describe: (name: string, body: () => void) => unknown;
  /** `timeoutMs` is passed only when the suite's `timeoutMs` option is set. */
  readonly it: (name: string, body: () => Promise<void>, timeoutMs?: number) => unknown;
}

/**
 * The parts of the `fast-check` module (v4) the conformance suites call, typed structurally so
 * that `@svc/gateway-kit/testing`'s declarations compile without fast-check installed (it is an
 * optional peer, needed only to run the suites). Pass the module itself.
 *
 * @example
 * import * as fc from 'fast-check';
 * const module: FastCheckModule = fc;
 */
export interface FastCheckModule {
  readonly array: (...args: never[]) => unknown;
  readonly assert: (...args: never[]) => unknown;
  readonly asyncModelRun: (...args: never[]) => unknown;
  readonly asyncProperty: (...args: never[]) => unknown;
  readonly commands: (...args: never[]) => unknown;
  readonly constantFrom: (...args: never[]) => unknown;
  readonly integer: (...args: never[]) => unknown;
  readonly option: (...args: never[]) => unknown;
  readonly record: (...args: never[]) => unknown;
  readonly scheduler: (...args: never[]) => unknown;
  readonly string: (...args: never[]) => unknown;
}

// Assertions shared by the conformance suites: they ship in the package, so they cannot rely on a
// test runner's `expect`.

export function assert(condition: boolean, message: string): asserts condition {
  if (!condition) throw new Error(message);
}

export function assertEqual(actual: unknown, expected: unknown, what: string): void {
  if (!deepEqual(actual, expected)) {
    throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}

/** Structural equality of JSON data (`0` equals `-0`, as after a JSON round trip); key sets must match. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const aKeys = Object.keys(a);
  const bKeys = Object.keys(b);
  if (aKeys.length !== bKeys.length) return false;
  const bRecord = b as Record<string, unknown>;
  return aKeys.every(
    (key) =>
      Object.hasOwn(bRecord, key) && deepEqual((a as Record<string, unknown>)[key], bRecord[key]),
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
