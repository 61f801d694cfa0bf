import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { expect, it } from 'vitest';
import { sourceFiles } from '../test/source-files.ts';

// One home per small helper: a second copy is how two of them drift apart (a Retry-After parser
// that disagreed with its twin, a logger call that lost `this` in one of two places).
const root = new URL('.', import.meta.url).pathname;
const sources = sourceFiles(root).map((path) => ({
  path: relative(root, path),
  text: readFileSync(path, 'utf8'),
}));

it.each([
  ['unrefTimer', 'runtime/timers.ts'],
  ['originOf', 'runtime/origin-of.ts'],
  ['MAX_TIMER_MS', 'runtime/limits.ts'],
  ['VERIFY_TIMEOUT_MS', 'runtime/limits.ts'],
  ['withinBudget', 'runtime/time-budget.ts'],
  ['isPromiseLike', 'runtime/time-budget.ts'],
  ['logWarning', 'runtime/logger.ts'],
  ['parseRetryAfter', 'callbacks/deliver-callback.ts'],
  ['readJsonBody', 'http/read-json-body.ts'],
  ['readWebBody', 'http/read-web-body.ts'],
  ['describeKind', 'runtime/config-refusal.ts'],
  ['refusalFor', 'runtime/config-refusal.ts'],
  ['assertOptions', 'runtime/option-schemas.ts'],
  ['isTimerMs', 'runtime/option-schemas.ts'],
  ['BASE_PATH', 'http/routes.ts'],
  ['CancelListeners', 'store/cancel-listeners.ts'],
])('%s is defined once, in %s', (name, home) => {
  const definition = new RegExp(`(?:function|const|let|class)\\s+${name}\\b`);
  expect(sources.filter((file) => definition.test(file.text)).map((file) => file.path)).toEqual([
    home,
  ]);
});

it('no file races, unrefs or warns by hand where the helper exists', () => {
  const byHand = [
    [/Promise\.race\(/, 'withinBudget', 'runtime/time-budget.ts'],
    [/\.unref\?\.\(\)/, 'unrefTimer', 'runtime/timers.ts'],
    [/\.warn \?\? [\w.#]*\.error/, 'logWarning', 'runtime/logger.ts'],
    [/A-Za-z0-9\._~-/, 'BASE_PATH', 'http/routes.ts'],
  ] as const;
  const found = sources.flatMap((file) =>
    byHand
      .filter(([pattern, , home]) => file.path !== home && pattern.test(file.text))
      .map(([, helper]) => `${file.path}: use ${helper}`),
  );
  expect(found).toEqual([]);
});
