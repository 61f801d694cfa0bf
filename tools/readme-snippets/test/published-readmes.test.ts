// The READMEs npm shows: links must resolve from the registry page, and every public
// package.json must carry the repository metadata of scripts/package-meta.mjs. check:package runs
// the same check on the packed tarball (scripts/check-published-readme.mjs).
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readmeLinkProblems } from '../../../scripts/check-published-readme.mjs';
import {
  driftedFields,
  publicPackageDirs,
  REPOSITORY_URL,
  repoRoot,
} from '../../../scripts/package-meta.mjs';

const packages = publicPackageDirs();

describe('published package READMEs and metadata', () => {
  it('finds the public packages', () => {
    const names = packages.map((dir) => relative(repoRoot, dir).split('\\').join('/'));
    expect(names).toEqual(
      expect.arrayContaining([
        'packages/gateway-kit',
        'packages/gateway-kit-redis',
        'packages/workspace-client',
      ]),
    );
  });

  it.each(packages.map((dir) => [relative(repoRoot, dir), dir]))(
    '%s: repository, homepage and bugs come from scripts/package-meta.mjs',
    (_, dir) => {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      expect(driftedFields(manifest, dir)).toEqual([]);
      expect(manifest.repository.directory).toBe(relative(repoRoot, dir).split('\\').join('/'));
    },
  );

  it.each(packages.map((dir) => [relative(repoRoot, dir), dir]))(
    '%s: every README link resolves from the registry page',
    (_, dir) => {
      expect(readmeLinkProblems(readFileSync(join(dir, 'README.md'), 'utf8'))).toEqual([]);
    },
  );
});

describe('the link check itself', () => {
  const blob = `${REPOSITORY_URL}/blob/main`;
  it('accepts absolute links into the repository, own anchors and external links', () => {
    const readme = [
      '# Pkg',
      '## Use it',
      `[guide](${blob}/docs/guide.md) [redis limits](${blob}/docs/redis.md#limits)`,
      `[examples](${REPOSITORY_URL}/tree/main/examples) [issues](${REPOSITORY_URL}/issues)`,
      '[use](#use-it) [npm](https://www.npmjs.com/package/redis)',
      '```md',
      '[inside code](../not-a-link.md)',
      '```',
    ].join('\n');
    expect(readmeLinkProblems(readme)).toEqual([]);
  });

  it('refuses what breaks on npm: relative links, missing files, headings or anchors', () => {
    const readme = [
      '# Pkg',
      '[guide](../../docs/guide.md)',
      `[gone](${blob}/docs/no-such-page.md)`,
      `[bad heading](${blob}/docs/redis.md#no-such-heading)`,
      '[anchor](#nowhere)',
      `[folder as blob](${blob}/docs)`,
      '[ref]: ./LICENSE',
    ].join('\n');
    expect(readmeLinkProblems(readme)).toEqual([
      expect.stringMatching(/^\.\.\/\.\.\/docs\/guide\.md: a relative link does not resolve/),
      expect.stringMatching(/no-such-page\.md does not exist in the repository$/),
      expect.stringMatching(/no heading #no-such-heading in docs\/redis\.md$/),
      '#nowhere: no such heading in the README',
      expect.stringMatching(/docs is a folder \(use \/tree\/\)$/),
      expect.stringMatching(/^\.\/LICENSE: a relative link/),
    ]);
  });
});
