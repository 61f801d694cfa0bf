import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

// A peer range the kit publishes must not admit a version that one of its dependencies refuses:
// npm installs it with `ERESOLVE overriding peer dependency` and `npm ls` then fails.
interface Manifest {
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
}

const manifestAt = (path: string): Manifest =>
  JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as Manifest;

/** The lowest version a caret range `^x.y.z` admits, and its major; other forms are refused. */
function caret(range: string): readonly [number, number, number] {
  const match = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!match) throw new Error(`not a caret range: ${range}`);
  return [Number(match[1]), Number(match[2]), Number(match[3])];
}

/** Whether every version `ours` admits is admitted by `theirs` (both caret ranges, major ≥ 1). */
function within(ours: string, theirs: string): boolean {
  const [a, b] = [caret(ours), caret(theirs)];
  if (a[0] !== b[0]) return false;
  return a[1] > b[1] || (a[1] === b[1] && a[2] >= b[2]);
}

const kit = manifestAt('../package.json');

it.each(Object.keys(kit.dependencies ?? {}))("the kit's peer ranges fit what %s asks", (name) => {
  const dependency = manifestAt(`../node_modules/${name}/package.json`);
  for (const [peer, range] of Object.entries(dependency.peerDependencies ?? {})) {
    const ours = kit.peerDependencies?.[peer];
    if (ours !== undefined)
      expect(within(ours, range), `${peer}: ${ours} within ${range}`).toBe(true);
  }
});
