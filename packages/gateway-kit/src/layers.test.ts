import { readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { expect, it } from 'vitest';
import { sourceFiles } from '../test/source-files.ts';

// The folders of src/ from the top layer down: a folder imports only from itself and from the
// layers below it, so one invoke reads top-down (gateway → jobs … → contract) and no folder
// reaches back up into the wiring. Folders of one layer do not import each other.
const LAYERS: readonly (readonly string[])[] = [
  ['index.ts', 'adapters', 'testing'],
  ['gateway'],
  ['approvals'],
  ['idempotency', 'jobs'],
  ['quotas', 'manifest', 'execution'],
  ['context'],
  ['observe'],
  ['store', 'callbacks', 'actions'],
  ['http', 'records'],
  ['runtime', 'contract', 'auth'],
];

const root = new URL('.', import.meta.url).pathname;
const layerOf = (folder: string): number => LAYERS.findIndex((layer) => layer.includes(folder));

it('every folder of src/ has a layer', () => {
  const folders = new Set(sourceFiles(root).map((path) => relative(root, path).split('/')[0]!));
  for (const folder of folders) expect(layerOf(folder), folder).toBeGreaterThanOrEqual(0);
});

it('imports only go down the layers (no cycles between folders, nothing reaches up)', () => {
  const upward: string[] = [];
  for (const path of sourceFiles(root)) {
    const from = relative(root, path).split('/')[0]!;
    for (const [, specifier] of readFileSync(path, 'utf8').matchAll(/from\s+'(\.{1,2}\/[^']+)'/g)) {
      const target = relative(root, normalize(join(dirname(path), specifier!))).split('/')[0]!;
      if (target === from) continue;
      if (!(layerOf(target) > layerOf(from)))
        upward.push(`${relative(root, path)} -> ${specifier} (${from} → ${target})`);
    }
  }
  expect(upward).toEqual([]);
});
