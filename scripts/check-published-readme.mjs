// Checks what npm will show for the package in the current directory (run by its check:package):
// 1. package.json carries the repository metadata of scripts/package-meta.mjs, and the packed
//    tarball holds the repository's LICENSE (the one its `license` field names);
// 2. every link of the README *inside the packed tarball* resolves from the registry page, where
//    relative links lead nowhere: anchors must name a heading of the README, links into the
//    repository must be absolute (REPOSITORY_URL/blob|tree/<branch>/<path>) and point at a file
//    or folder that exists (and, with a #fragment into a Markdown file, at one of its headings);
//    other links must be absolute http(s) or mailto.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_BRANCH,
  driftedFields,
  LICENSE,
  licenseText,
  REPOSITORY_URL,
  repoRoot,
} from './package-meta.mjs';

/** GitHub's (and npm's) heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function headingSlug(text) {
  return text
    .replace(/`/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown document offers (duplicates get -1, -2 … as on GitHub). */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  for (const line of withoutCode(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const slug = headingSlug(heading[1]);
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The Markdown without fenced code blocks and inline code (links there are not links). */
function withoutCode(markdown) {
  return markdown.replace(/^([ \t]*)(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\2[ \t]*$/gm, '');
}

/** Every link target of a Markdown document: inline, reference definitions, HTML href/src. */
export function linksOf(markdown) {
  const text = withoutCode(markdown).replace(/`[^`\n]*`/g, '');
  const links = [];
  for (const match of text.matchAll(
    /!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g,
  )) {
    links.push(match[1]);
  }
  for (const match of text.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm)) {
    links.push(match[1]);
  }
  for (const match of text.matchAll(/\b(?:href|src)\s*=\s*"([^"]+)"/g)) links.push(match[1]);
  return links;
}

/** Problems of the README's links as seen from the npm registry page (empty when all resolve). */
export function readmeLinkProblems(markdown) {
  const problems = [];
  const ownAnchors = anchorsOf(markdown);
  const repoPrefix = new RegExp(
    `^${REPOSITORY_URL.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/(blob|tree)/${DEFAULT_BRANCH}/([^#?]*)(?:#(.*))?$`,
  );
  for (const link of linksOf(markdown)) {
    if (link.startsWith('#')) {
      if (!ownAnchors.has(decodeURIComponent(link.slice(1)))) {
        problems.push(`${link}: no such heading in the README`);
      }
      continue;
    }
    if (/^mailto:/i.test(link)) continue;
    if (!/^https?:\/\//i.test(link)) {
      problems.push(
        `${link}: a relative link does not resolve on the registry page (use ${REPOSITORY_URL}/blob/${DEFAULT_BRANCH}/…)`,
      );
      continue;
    }
    const inRepo = repoPrefix.exec(link);
    if (!inRepo) {
      if (
        link.startsWith(`${REPOSITORY_URL}/`) &&
        !/^\/(issues|pulls)(\/|$)/.test(link.slice(REPOSITORY_URL.length))
      ) {
        problems.push(
          `${link}: links into the repository use /blob/${DEFAULT_BRANCH}/ or /tree/${DEFAULT_BRANCH}/`,
        );
      }
      continue;
    }
    const [, kind, path = '', fragment] = inRepo;
    const target = join(repoRoot, decodeURIComponent(path));
    if (!existsSync(target)) {
      problems.push(`${link}: ${path || '/'} does not exist in the repository`);
      continue;
    }
    if (kind === 'blob' && statSync(target).isDirectory()) {
      problems.push(`${link}: ${path} is a folder (use /tree/)`);
      continue;
    }
    if (
      fragment &&
      target.endsWith('.md') &&
      !anchorsOf(readFileSync(target, 'utf8')).has(decodeURIComponent(fragment))
    ) {
      problems.push(`${link}: no heading #${fragment} in ${path}`);
    }
  }
  return problems;
}

/** Packs the package as npm would publish it and returns the README inside the tarball. */
function packedFiles(packageDir) {
  const scratch = mkdtempSync(join(tmpdir(), 'published-readme-'));
  try {
    execFileSync('pnpm', ['pack', '--pack-destination', scratch], {
      cwd: packageDir,
      stdio: 'ignore',
    });
    const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
    execFileSync('tar', ['-xzf', join(scratch, tarball), '-C', scratch, 'package']);
    const read = (name) => {
      const file = join(scratch, 'package', name);
      return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
    };
    return { readme: read('README.md') ?? '', license: read('LICENSE') };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const packageDir = process.cwd();
  const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
  const problems = driftedFields(manifest, packageDir).map(
    (field) =>
      `package.json: ${field} differs from scripts/package-meta.mjs (run node scripts/package-meta.mjs)`,
  );
  if (manifest.license !== LICENSE) problems.push(`package.json: license is not "${LICENSE}"`);
  const { readme, license } = packedFiles(packageDir);
  const expected = licenseText();
  if (expected === undefined || license !== expected)
    problems.push(
      'LICENSE (packed): missing, or not the repository LICENSE (pnpm pack adds it to a package without one)',
    );
  problems.push(...readmeLinkProblems(readme).map((problem) => `README.md (packed): ${problem}`));
  if (problems.length > 0) {
    for (const problem of problems) console.error(`${manifest.name}: ${problem}`);
    process.exit(1);
  }
  console.log(
    `${manifest.name}: repository metadata in sync, LICENSE packed; ${linksOf(readme).length} README links resolve from the registry page`,
  );
}
