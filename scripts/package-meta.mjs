// The one place that says where the repository lives, and what every public package.json says
// about it (`repository` with `directory`, `homepage`, `bugs`). npm shows these on the package's
// page, so a reader of a published package can reach the docs and the issue tracker.
//
//   node scripts/package-meta.mjs          writes the fields into every public packages/*/package.json
//   node scripts/package-meta.mjs --check  fails (exit 1) when one of them drifted
//
// check:package of each package also runs the check (scripts/check-published-readme.mjs).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's public address (a placeholder until the repository is published). */
export const REPOSITORY_URL = 'https://github.com/svc-sdk/svc-sdk';
/** The branch the published READMEs link into. */
export const DEFAULT_BRANCH = 'main';

export const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The metadata a public package at `packageDir` must carry. */
export function expectedMeta(packageDir) {
  const directory = relative(repoRoot, packageDir).split('\\').join('/');
  return {
    repository: { type: 'git', url: `git+${REPOSITORY_URL}.git`, directory },
    homepage: `${REPOSITORY_URL}/tree/${DEFAULT_BRANCH}/${directory}#readme`,
    bugs: { url: `${REPOSITORY_URL}/issues` },
  };
}

/** Fields of `manifest` that differ from `expectedMeta` (empty when in sync). */
export function driftedFields(manifest, packageDir) {
  const expected = expectedMeta(packageDir);
  return Object.keys(expected).filter(
    (key) => JSON.stringify(manifest[key]) !== JSON.stringify(expected[key]),
  );
}

/** The license every public package is published under (its `license` field). */
export const LICENSE = 'MIT';

/**
 * The repository's LICENSE: `pnpm pack` (and so `changeset publish`) puts it into every package
 * that has none of its own, which check-published-readme.mjs checks in the packed tarball.
 */
export function licenseText() {
  try {
    return readFileSync(join(repoRoot, 'LICENSE'), 'utf8');
  } catch {
    return undefined;
  }
}

/** Public (not `private`) packages under packages/. */
export function publicPackageDirs() {
  const root = join(repoRoot, 'packages');
  return readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(root, entry.name))
    .filter((dir) => {
      try {
        return !JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private;
      } catch {
        return false;
      }
    });
}

/** Inserts the fields after `license` (or at the end), keeping the rest of the file's order. */
function withMeta(manifest, packageDir) {
  const meta = expectedMeta(packageDir);
  const result = {};
  for (const [key, value] of Object.entries(manifest)) {
    if (key in meta) continue;
    result[key] = value;
    if (key === 'license') Object.assign(result, meta);
  }
  if (!('license' in manifest)) Object.assign(result, meta);
  return result;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const check = process.argv.includes('--check');
  let drifted = 0;
  for (const dir of publicPackageDirs()) {
    const file = join(dir, 'package.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8'));
    const fields = driftedFields(manifest, dir);
    if (fields.length === 0) continue;
    if (check) {
      drifted += 1;
      console.error(
        `${relative(repoRoot, file)}: ${fields.join(', ')} differ from scripts/package-meta.mjs`,
      );
    } else {
      writeFileSync(file, `${JSON.stringify(withMeta(manifest, dir), null, 2)}\n`);
      console.log(`${relative(repoRoot, file)}: wrote ${fields.join(', ')}`);
    }
  }
  if (drifted > 0) {
    console.error('Run `node scripts/package-meta.mjs` to write them.');
    process.exit(1);
  }
}
