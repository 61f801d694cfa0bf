// Every ```ts block of the root README and of packages/*/README.md is typechecked with the
// workspace's TypeScript and run (unless marked `<!-- snippet: typecheck-only -->`). Needs the
// packages built (`pnpm build`): snippets import them like a user would.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  repoRoot,
  runSnippet,
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
const snippets = readmes.flatMap((file) => extractSnippets(readFileSync(file, 'utf8'), file));
const label = (s: { source: string; line: number }) => `${relative(repoRoot, s.source)}:${s.line}`;

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

/** A snippet that starts a server is a gateway: its manifest must answer with the token. */
async function probeGateway(url: string) {
  const response = await fetch(`${url}/v1/manifest`, {
    headers: { authorization: `Bearer ${SNIPPET_ENV.GATEWAY_TOKEN}` },
  });
  const body = (await response.json()) as { actions?: { id: string }[] };
  return { status: response.status, actions: body.actions?.map((a) => a.id) ?? [] };
}

describe('README code blocks', () => {
  it('the root README and each package README with code have TypeScript blocks', () => {
    expect(snippets.filter((s) => s.source === readmes[0]).length).toBeGreaterThanOrEqual(2);
    for (const pkg of ['gateway-kit', 'workspace-client']) {
      expect(
        snippets.some((s) => s.source.includes(`packages/${pkg}/`)),
        pkg,
      ).toBe(true);
    }
  });

  it('every block compiles with the workspace TypeScript (strict, the repo base config)', () => {
    const report = checked.diagnostics.map((d) => `${d.where}: ${d.message}`).join('\n');
    expect(report).toBe('');
    expect(checked.ok).toBe(true);
  });

  const runnable = snippets.filter((s) => s.mode === 'run');
  it.each(runnable.map((s) => [label(s), s] as const))('runs %s', async (_, snippet) => {
    const file = written.find((w) => w.source === snippet.source && w.line === snippet.line)!;
    const result = await runSnippet(file, probeGateway);
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.timedOut, `neither exited nor served within 20 s:\n${output}`).toBe(false);
    if (result.report.listening) {
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

  it('fails a block that throws, and keeps it off the network', async () => {
    const [file] = writeSnippets(fixtureDir, broken.slice(1));
    const result = await runSnippet(file!, probeGateway);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('network access to https://api.example.org is blocked');
  });
});
