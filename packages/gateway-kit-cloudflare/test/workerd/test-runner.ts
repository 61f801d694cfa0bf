import type { ConformanceTestApi } from '@svc/gateway-kit/testing';

/** One registered test: its full name (describe blocks joined with ` > `) and body. */
export interface RegisteredTest {
  readonly name: string;
  readonly body: () => Promise<void>;
  readonly timeoutMs: number | undefined;
}

/**
 * The `describe`/`it` pair the conformance suites need, collecting tests instead of running them:
 * inside workerd there is no test runner, so the Node side asks for the list and then runs each
 * test by its index, one request per test.
 */
export function collectTests(register: (test: ConformanceTestApi) => void): RegisteredTest[] {
  const tests: RegisteredTest[] = [];
  const path: string[] = [];
  register({
    describe: (name, body) => {
      path.push(name);
      try {
        body();
      } finally {
        path.pop();
      }
    },
    it: (name, body, timeoutMs) => {
      tests.push({ name: [...path, name].join(' > '), body, timeoutMs });
    },
  });
  return tests;
}

/** Runs one test; the answer says whether it passed and, if not, why. */
export async function runTest(
  test: RegisteredTest,
): Promise<{ ok: boolean; error?: string; ms: number }> {
  const started = performance.now();
  try {
    await test.body();
    return { ok: true, ms: performance.now() - started };
  } catch (error) {
    const message =
      error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
    return { ok: false, error: message, ms: performance.now() - started };
  }
}
