import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Snippet } from './extract.ts';

const here = dirname(fileURLToPath(import.meta.url));
/** Root of the monorepo. */
export const repoRoot: string = join(here, '..', '..', '..');
const require = createRequire(import.meta.url);

export interface WrittenSnippet extends Snippet {
  /** Absolute path of the .ts file written for the snippet. */
  readonly file: string;
}

/**
 * Writes snippets as .ts files into `dir` (inside this package, so `@svc/gateway-kit`,
 * `@svc/workspace-client` and `valibot` resolve from its node_modules) with a tsconfig that
 * extends the repository's base config.
 */
export function writeSnippets(dir: string, snippets: readonly Snippet[]): WrittenSnippet[] {
  mkdirSync(dir, { recursive: true });
  const base = relative(dir, join(repoRoot, 'tsconfig.base.json')).split('\\').join('/');
  const tsconfig = {
    extends: base,
    compilerOptions: { types: ['node'], isolatedDeclarations: false, declaration: false },
    include: ['*.ts'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  return snippets.map((snippet) => {
    const name = relative(repoRoot, snippet.source).replace(/[^\w.-]+/g, '_');
    const file = join(dir, `${name}-L${snippet.line}.ts`);
    writeFileSync(file, snippet.code);
    return { ...snippet, file };
  });
}

export interface Diagnostic {
  /** `README.md:12:5` — position in the Markdown file, or in the generated file if unknown. */
  readonly where: string;
  readonly message: string;
}

/** Typechecks a directory written by `writeSnippets` with the workspace's tsc. */
export async function typecheck(dir: string, written: readonly WrittenSnippet[]) {
  const tsc = require.resolve('typescript/bin/tsc');
  const result = await runProcess(process.execPath, [tsc, '-p', dir, '--pretty', 'false'], {
    cwd: dir,
    timeoutMs: 120_000,
  });
  const byName = new Map(written.map((s) => [basename(s.file), s]));
  const diagnostics: Diagnostic[] = [];
  for (const line of result.stdout.split('\n')) {
    const match = /^(.+?)\((\d+),(\d+)\): (error .*)$/.exec(line.trim());
    if (!match) {
      if (line.trim()) diagnostics.push({ where: 'tsc', message: line.trim() });
      continue;
    }
    const [, path = '', row = '0', col = '0', message = ''] = match;
    const snippet = byName.get(basename(path));
    diagnostics.push({
      where: snippet
        ? `${relative(repoRoot, snippet.source)}:${snippet.line + Number(row) - 1}:${col}`
        : `${path}:${row}:${col}`,
      message,
    });
  }
  return { ok: result.code === 0 && diagnostics.length === 0, diagnostics, tsc: result };
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

function runProcess(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<ProcessResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}

/** What the harness reported about a run (see harness.ts). */
export interface RunReport {
  /** Address of the server the snippet started, if it started one. */
  listening?: string;
  /** Exit code seen by the snippet process, and what it stored in the emulated workspace. */
  exit?: number;
  workspace?: { skills: unknown[]; agents: unknown[]; debriefs: unknown[] };
  requests?: { method: string; path: string; status: number }[];
}

export interface RunResult extends ProcessResult {
  report: RunReport;
  /** For a snippet that started a server: what `probe` resolved to. */
  probed?: unknown;
}

/** Environment every snippet runs with. */
export const SNIPPET_ENV = {
  GATEWAY_TOKEN: 'readme-snippets-gateway-token',
  SVC_BASE_URL: 'https://svc.example.com',
  SVC_WORKSPACE_KEY: 'wk_readme_snippets',
} as const;

const readReport = (file: string): RunReport => {
  if (!existsSync(file)) return {};
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return Object.assign({}, ...lines.map((line) => JSON.parse(line) as RunReport));
};

/**
 * Runs one snippet with Node (type stripping) and the harness preloaded. A snippet either exits
 * (its exit code counts) or starts a server: then `probe(url)` is called against it and the
 * process is stopped.
 */
export async function runSnippet(
  snippet: WrittenSnippet,
  probe: (url: string) => Promise<unknown>,
  timeoutMs = 20_000,
): Promise<RunResult> {
  const reportFile = `${snippet.file}.report.jsonl`;
  writeFileSync(reportFile, '');
  const harness = join(here, 'harness.ts');
  const child = spawn(process.execPath, ['--import', harness, snippet.file], {
    cwd: dirname(snippet.file),
    env: { ...process.env, ...SNIPPET_ENV, SNIPPET_REPORT: reportFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal })),
  );
  const deadline = Date.now() + timeoutMs;
  let probed: unknown;
  let timedOut = false;
  try {
    for (;;) {
      const state = await Promise.race([
        exited.then(() => 'exited' as const),
        new Promise<'tick'>((resolve) => setTimeout(() => resolve('tick'), 50)),
      ]);
      if (state === 'exited') break;
      const { listening } = readReport(reportFile);
      if (listening) {
        probed = await probe(listening);
        break;
      }
      if (Date.now() > deadline) {
        timedOut = true;
        break;
      }
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  }
  const { code, signal } = await exited;
  return { code, signal, stdout, stderr, timedOut, report: readReport(reportFile), probed };
}
