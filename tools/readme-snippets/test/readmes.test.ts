// Every ```ts / ```js block of the root README, of packages/*/README.md and of docs/**/*.md is
// typechecked with the workspace's TypeScript and run (unless marked
// `<!-- snippet: typecheck-only -->`); blocks named `*.test.ts` are run with vitest. Needs the
// packages built (`pnpm build`): snippets import them like a user would.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  isTestFile,
  repoRoot,
  runSnippet,
  runTestSnippet,
  SNIPPET_ENV,
  typecheck,
  type WrittenSnippet,
  writeSnippets,
} from '../src/check.ts';
import { extractSnippets } from '../src/extract.ts';

const readmes = [
  join(repoRoot, 'README.md'),
  ...readdirSync(join(repoRoot, 'packages'))
    .map((name) => join(repoRoot, 'packages', name, 'README.md'))
    .filter((file) => existsSync(file)),
];
const docs = readdirSync(join(repoRoot, 'docs'), { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.md') && !name.split(/[\\/]/).includes('api'))
  .map((name) => join(repoRoot, 'docs', name))
  .sort();
const snippets = [...readmes, ...docs].flatMap((file) =>
  extractSnippets(readFileSync(file, 'utf8'), file),
);
const label = (s: { source: string; line: number }) => `${relative(repoRoot, s.source)}:${s.line}`;

/**
 * Diagnostics tolerated for now, each with the change that removes it. Remove an entry as soon
 * as that change has landed: anything else in those files still fails the test.
 */
const PENDING: readonly { file: string; message: RegExp; until: string; run?: false }[] = [];

const tmp = join(import.meta.dirname, '..', '.tmp');
mkdirSync(tmp, { recursive: true });
const dir = mkdtempSync(join(tmp, 'readmes-'));
let written: WrittenSnippet[] = [];
let checked: Awaited<ReturnType<typeof typecheck>>;
beforeAll(async () => {
  written = writeSnippets(dir, snippets);
  checked = await typecheck(dir, written);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A snippet that keeps a server running is a gateway: its manifest must answer 200 with at least
 * one action for the token, at the root or under `/gateway` (a gateway mounted inside an app).
 * Anything else throws (see runSnippet).
 */
async function probeGateway(url: string) {
  const manifest = (base: string) =>
    fetch(`${base}/v1/manifest`, {
      headers: { authorization: `Bearer ${SNIPPET_ENV.GATEWAY_TOKEN}` },
    });
  let response = await manifest(url);
  if (response.status === 404) {
    await response.body?.cancel();
    url = `${url}/gateway`;
    response = await manifest(url);
  }
  const body = (await response.json().catch(() => ({}))) as { actions?: { id: string }[] };
  const actions = body.actions?.map((a) => a.id) ?? [];
  if (response.status !== 200 || actions.length === 0) {
    throw new Error(
      `${url}/v1/manifest answered ${response.status} with ${actions.length} actions`,
    );
  }
  return { status: response.status, actions };
}

describe('README and docs code blocks', () => {
  it('the root README, each package README with code and the docs have TypeScript blocks', () => {
    expect(snippets.filter((s) => s.source === readmes[0]).length).toBeGreaterThanOrEqual(2);
    for (const pkg of ['gateway-kit', 'workspace-client']) {
      expect(
        snippets.some((s) => s.source.includes(`packages/${pkg}/`)),
        pkg,
      ).toBe(true);
    }
    for (const page of [
      'guide.md',
      'getting-started.md',
      'approvals.md',
      'workspace-emulator.md',
    ]) {
      expect(
        snippets.some((s) => s.source === join(repoRoot, 'docs', page)),
        page,
      ).toBe(true);
    }
  });

  it('every block compiles with the workspace TypeScript (strict, the repo base config)', () => {
    const report = checked.diagnostics
      .filter(
        (d) => !PENDING.some((p) => d.where.startsWith(`${p.file}:`) && p.message.test(d.message)),
      )
      .map((d) => `${d.where}: ${d.message}`)
      .join('\n');
    expect(report).toBe('');
    if (!PENDING.length) expect(checked.ok).toBe(true);
  });

  it('every PENDING entry still matches a diagnostic (remove the ones whose change landed)', () => {
    const stale = PENDING.filter(
      (p) =>
        !checked.diagnostics.some(
          (d) => d.where.startsWith(`${p.file}:`) && p.message.test(d.message),
        ),
    );
    expect(stale.map((p) => `${p.file}: ${p.until}`)).toEqual([]);
  });

  const notRunYet = (s: { source: string }) =>
    PENDING.some((p) => p.run === false && relative(repoRoot, s.source) === p.file);
  const runnable = snippets.filter((s) => s.mode === 'run' && !notRunYet(s));
  const writtenOf = (snippet: (typeof snippets)[number]) =>
    written.find((w) => w.source === snippet.source && w.line === snippet.line)!;

  const tests = runnable.filter(isTestFile);
  it.each(tests.map((s) => [label(s), s] as const))('runs %s with vitest', async (_, snippet) => {
    const result = await runTestSnippet(writtenOf(snippet));
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.timedOut, output).toBe(false);
    expect(result.code, output).toBe(0);
  });

  const scripts = runnable.filter((s) => !isTestFile(s));
  it.each(scripts.map((s) => [label(s), s] as const))('runs %s', async (_, snippet) => {
    const file = writtenOf(snippet);
    const result = await runSnippet(file, probeGateway);
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.timedOut, `neither exited nor served within 20 s:\n${output}`).toBe(false);
    if (result.probed !== undefined) {
      // A server (e.g. `serve(gateway, { port: 8787 })`, moved to a free loopback port).
      expect(result.probed, output).toMatchObject({ status: 200 });
      expect((result.probed as { actions: string[] }).actions.length).toBeGreaterThan(0);
    } else {
      expect(result.code, output).toBe(0);
      expect(result.stderr).toBe('');
    }
    // Whatever it sent to the (emulated) workspace was accepted.
    for (const request of result.report.requests ?? []) {
      expect(request.status, `${request.method} ${request.path}`).toBeLessThan(400);
    }
  });
});

describe('the checker itself', () => {
  const fixture = join(import.meta.dirname, 'fixtures', 'broken.md');
  const broken = extractSnippets(readFileSync(fixture, 'utf8'), fixture);
  const fixtureDir = mkdtempSync(join(tmp, 'fixture-'));
  afterAll(() => rmSync(fixtureDir, { recursive: true, force: true }));

  it('reports a block that does not compile, at its line in the Markdown file', async () => {
    const files = writeSnippets(fixtureDir, broken);
    const result = await typecheck(fixtureDir, files);
    expect(result.ok).toBe(false);
    expect(result.diagnostics).toContainEqual({
      where: 'tools/readme-snippets/test/fixtures/broken.md:6:7',
      message: "error TS2322: Type 'string' is not assignable to type 'number'.",
    });
  });

  it('runs a block named *.test.ts with vitest and fails it when a test fails', async () => {
    const files = writeSnippets(fixtureDir, broken);
    const testFile = files.find((f) => f.fileName === 'answer.test.ts')!;
    expect(isTestFile(testFile)).toBe(true);
    const result = await runTestSnippet(testFile);
    expect(result.code).not.toBe(0);
    expect(`${result.stdout}${result.stderr}`).toContain('expected 42 to be 41');
  });

  it('fails a block that throws, and keeps it off the network', async () => {
    const [file] = writeSnippets(fixtureDir, broken.slice(1));
    const result = await runSnippet(file!, probeGateway);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('network access to https://api.example.org is blocked');
  });
});
