import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
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
 * Minimal declarations of the Deno and Bun globals the docs use (`Deno.serve`, `Bun.serve`), so
 * blocks for those runtimes typecheck under Node's types. Only the shapes the docs call.
 */
const RUNTIME_GLOBALS = `type Handler = (request: Request) => Response | Promise<Response>;
declare global {
  const Deno: {
    serve(handler: Handler): unknown;
    serve(options: { port?: number; hostname?: string }, handler: Handler): unknown;
    env: { get(name: string): string | undefined; toObject(): Record<string, string> };
  };
  const Bun: {
    serve(options: { port?: number; hostname?: string; fetch: Handler }): unknown;
  };
}
export {};
`;

/**
 * Writes snippets into `dir` (inside this package, so `@svc/gateway-kit`, `@svc/workspace-client`
 * and `valibot` resolve from its node_modules) with a tsconfig that extends the repository's base
 * config. Each Markdown file gets its own folder; a block that names its file on its first line
 * (`// actions.ts`) is written under that name, so the document's later blocks can import it;
 * the others are written as `L<line>.ts`.
 */
export function writeSnippets(dir: string, snippets: readonly Snippet[]): WrittenSnippet[] {
  mkdirSync(dir, { recursive: true });
  const base = relative(dir, join(repoRoot, 'tsconfig.base.json')).split('\\').join('/');
  const tsconfig = {
    extends: base,
    compilerOptions: {
      types: ['node'],
      isolatedDeclarations: false,
      declaration: false,
      allowJs: true,
      checkJs: true,
    },
    include: ['**/*.ts', '**/*.mts', '**/*.js', '**/*.mjs'],
  };
  writeFileSync(join(dir, 'tsconfig.json'), `${JSON.stringify(tsconfig, null, 2)}\n`);
  writeFileSync(join(dir, 'runtime-globals.d.ts'), RUNTIME_GLOBALS);
  const taken = new Map<string, Snippet>();
  return snippets.map((snippet) => {
    const folder = join(dir, relative(repoRoot, snippet.source).replace(/[^\w.-]+/g, '_'));
    mkdirSync(folder, { recursive: true });
    const file = join(folder, snippet.fileName ?? `L${snippet.line}.${snippet.lang}`);
    const previous = taken.get(file);
    if (previous) {
      throw new Error(
        `${relative(repoRoot, snippet.source)}:${snippet.line}: a block at line ${previous.line} is already named ${snippet.fileName}`,
      );
    }
    taken.set(file, snippet);
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
  const byPath = new Map(written.map((s) => [relative(dir, s.file), s]));
  const diagnostics: Diagnostic[] = [];
  for (const line of result.stdout.split('\n')) {
    const match = /^(.+?)\((\d+),(\d+)\): (error .*)$/.exec(line.trim());
    if (!match) {
      if (line.trim()) diagnostics.push({ where: 'tsc', message: line.trim() });
      continue;
    }
    const [, path = '', row = '0', col = '0', message = ''] = match;
    const snippet = byPath.get(relative(dir, resolve(dir, path)));
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
  /** For a snippet that started a server and kept it running: what `probe` resolved to. */
  probed?: unknown;
}

/** Environment every snippet runs with. */
export const SNIPPET_ENV = {
  GATEWAY_TOKEN: 'readme-snippets-gateway-token',
  SVC_WORKSPACE_URL: 'https://svc.example.com',
  SVC_WORKSPACE_KEY: 'wk_readme_snippets',
  // A Standard Webhooks secret (whsec_ + base64) made up for the snippets.
  CALLBACK_SIGNING_SECRET: `whsec_${btoa('readme-snippets-callback-signing-secret')}`,
} as const;

const readReport = (file: string): RunReport => {
  if (!existsSync(file)) return {};
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  return Object.assign({}, ...lines.map((line) => JSON.parse(line) as RunReport));
};

/** A block named `*.test.ts` (or .js) is a test file: it is run with vitest, like a reader would. */
export const isTestFile = (snippet: Snippet): boolean =>
  /\.test\.(?:ts|mts|js|mjs)$/.test(snippet.fileName ?? '');

/**
 * Runs a test-file snippet with the workspace's vitest, in the snippet's folder (so its imports of
 * sibling blocks resolve). It passes when vitest exits 0.
 */
export function runTestSnippet(
  snippet: WrittenSnippet,
  timeoutMs = 60_000,
): Promise<ProcessResult> {
  const vitest = join(dirname(require.resolve('vitest/package.json')), 'vitest.mjs');
  return runProcess(
    process.execPath,
    [vitest, 'run', '--root', dirname(snippet.file), basename(snippet.file), '--reporter=dot'],
    {
      cwd: dirname(snippet.file),
      env: { ...process.env, ...SNIPPET_ENV, CI: 'true', NODE_OPTIONS: '' },
      timeoutMs,
    },
  );
}

/**
 * Runs one snippet with Node (type stripping) and the harness preloaded. A snippet either exits
 * (its exit code counts) or starts a server: then `probe(url)` is called against it and the
 * process is stopped. `probe` throws when the server is not the kind the caller looks for (or does
 * not answer): a snippet that starts a helper server (a local emulator) and exits on its own is
 * then judged by its exit; one that keeps running fails with the probe's error.
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
        try {
          probed = await probe(listening);
        } catch (error) {
          const ended = await Promise.race([
            exited.then(() => true),
            new Promise<false>((resolve) => setTimeout(() => resolve(false), 5_000)),
          ]);
          if (!ended) throw error;
        }
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
