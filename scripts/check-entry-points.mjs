// Entry points as a user runs them: packs every public package, serves the tarballs as the `@svc`
// scope of an npm registry on loopback (every other package comes from the real registry), and
// for each page makes an empty folder with `npm init -y` and does what the page tells its reader,
// exactly as written:
// - the root README and each package README: every code block, in order (shell lines are run,
//   TypeScript/JavaScript blocks are saved and run with `node`, named files are written);
// - docs/*.md: every command line (`npx …`, `npm …`, the bins), inline ones included, and the
//   files the page names (`// actions.ts`, `# workspace/skills/pricing.yaml`), from an empty folder
//   too: a page that does not say what to install leaves its reader with nothing installed.
// A page fails when its reader would be stuck: a command exits non-zero, a snippet imports a
// package the page never installed, a server neither exits nor prints its address within the time
// limit, or does not answer there. Servers are stopped with SIGINT (Ctrl-C) at the end of the page.
// The demo gateway (bash scripts/demo.sh, in the workspace) runs on 127.0.0.1:8787 for the pages
// that talk to it. Usage: node scripts/check-entry-points.mjs [--page PATH]... [--verbose]
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const args = process.argv.slice(2);
const verbose = args.includes('--verbose');
const onlyPages = args.flatMap((arg, i) => (args[i - 1] === '--page' ? [arg] : []));
const COMMAND_MS = 60_000; // a command that neither ends nor serves within this is a stuck reader
const INSTALL_MS = 240_000;
const STOP_MS = 10_000;
const DEMO_PORT = 8787;
// Failures tolerated until a named change lands (a page another change is rewriting). The run
// fails on an entry that no longer matches a failure, so each is removed once fixed.
const PENDING = [
  {
    page: 'docs/redis.md',
    match: 'imports @svc/example-demo-actions, which is not published',
    until: "docs/redis.md's rewrite in the Redis change (issue 20)",
  },
];

// Commands a reader of a published package runs. Anything else in a shell block (pnpm, bash
// scripts/…, git, deno, bun) runs in a clone of this repository, which the other CI steps cover.
const READER_COMMANDS = new Set([
  'npm',
  'npx',
  'node',
  'curl',
  'export',
  'svc-gateway-check',
  'svc-workspace',
  'svc-workspace-emulator',
]);
// In docs/, only command lines are run (their code blocks are run in the workspace by
// tools/readme-snippets): no `node FILE` and no `curl`, which talk to the page's own snippets.
const DOCS_COMMANDS = new Set([
  'npm',
  'npx',
  'export',
  'svc-gateway-check',
  'svc-workspace',
  'svc-workspace-emulator',
]);

const scratch = mkdtempSync(join(tmpdir(), 'svc-entry-points-'));
// One npm cache for every page (and across local runs); CI starts with an empty one.
const npmCache = join(root, 'node_modules', '.cache', 'entry-points-npm');
// npx keeps what it fetched under <cache>/_npx and reuses it for the same version: drop it, so
// every run executes this run's tarballs.
rmSync(join(npmCache, '_npx'), { recursive: true, force: true });
const children = new Set();
let registry;
let demo;
const results = [];

try {
  // The demo builds and starts (scripts/demo.sh) while the packages are packed.
  const demoStarting = startDemo();
  demoStarting.catch(() => {});
  const packages = pack();
  registry = await serveRegistry(packages);
  const npmrc = join(scratch, 'npmrc');
  writeFileSync(npmrc, `@svc:registry=${registry.url}/\n`);
  // The machine's environment (certificates, proxies), without what this run or pnpm set.
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) =>
        !/^(npm_|pnpm_|PNPM_|npm_config_|NODE_OPTIONS$|NODE_PATH$|INIT_CWD$|GATEWAY_|SVC_|OPERATOR_|REDIS_|PORT$|HOST$)/i.test(
          name,
        ),
    ),
  );
  const baseEnv = {
    ...inherited,
    HOME: join(scratch, 'home'),
    NO_COLOR: '1',
    npm_config_userconfig: npmrc,
    npm_config_cache: npmCache,
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    // Third-party metadata from the shared cache when it has it; the @svc scope is never cached
    // (its registry answers no-store), so every page gets this run's tarballs.
    npm_config_prefer_offline: 'true',
    npm_config_yes: 'true', // npx asks before installing a package that is not installed: a CI has no one to answer
  };
  mkdirSync(baseEnv.HOME, { recursive: true });
  demo = await demoStarting;

  const pages = [
    'README.md',
    ...readdirSync(join(root, 'packages')).map((name) => `packages/${name}/README.md`),
    ...readdirSync(join(root, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => `docs/${name}`),
  ].filter(
    (page) => existsSync(join(root, page)) && (onlyPages.length === 0 || onlyPages.includes(page)),
  );
  for (const page of pages) {
    const started = Date.now();
    const result = applyPending(await checkPage(page, baseEnv, packages));
    results.push(result);
    console.log(
      `${result.failures.length ? 'FAIL' : 'ok  '}  ${page} (${result.ran} run, ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }
  // Ctrl-C on the demo (README quick start): it stops cleanly, without pnpm failure lines.
  const stopped = await stop(demo);
  const { code } = await demo.exited;
  const printed = demo.output();
  if (!stopped || code !== 0 || /ERR_PNPM|Command failed|ELIFECYCLE/.test(printed)) {
    results.push({
      page: 'scripts/demo.sh',
      ran: 1,
      skipped: [],
      failures: [
        `scripts/demo.sh: Ctrl-C (SIGINT) on the demo: ${stopped ? `exit code ${code}` : 'it did not stop'}\n        ${printed.trim().split('\n').slice(-4).join('\n        ')}`,
      ],
    });
  } else {
    results.push({ page: 'scripts/demo.sh', ran: 1, skipped: [], failures: [] });
  }
} finally {
  for (const child of children) stopGroup(child, 'SIGKILL');
  registry?.server.closeAllConnections();
  registry?.server.close();
  rmSync(scratch, { recursive: true, force: true });
}

console.log('');
let failedPages = 0;
for (const result of results) {
  if (result.failures.length === 0) {
    if (result.ran + result.skipped.length > 0 || verbose) {
      console.log(
        `ok    ${result.page} (${result.ran} run, ${result.skipped.length} left to the repository's own checks)`,
      );
    }
  } else {
    failedPages += 1;
    console.log(`FAIL  ${result.page}`);
    for (const failure of result.failures) console.log(`      ${failure}`);
  }
  if (verbose) for (const skip of result.skipped) console.log(`      skipped: ${skip}`);
}
const ran = results.filter((r) => r.ran > 0 || r.failures.length > 0).length;
console.log(
  `\nentry points: ${ran - failedPages} pages ok, ${failedPages} failed (${results.length} read, packages installed from their packed tarballs)`,
);
process.exitCode = failedPages === 0 ? 0 : 1;

/** Removes the failures PENDING tolerates from one page's result (an unmatched entry fails). */
function applyPending(result) {
  for (const pending of PENDING.filter((p) => p.page === result.page)) {
    const before = result.failures.length;
    result.failures = result.failures.filter((failure) => !failure.includes(pending.match));
    if (result.failures.length === before) {
      result.failures.push(`PENDING entry "${pending.match}" matches nothing any more: remove it`);
    } else {
      result.skipped.push(`pending until ${pending.until}: ${pending.match}`);
    }
  }
  return result;
}

/** Packs every public package into the scratch folder; returns their manifests and tarballs. */
function pack() {
  const out = join(scratch, 'tarballs');
  mkdirSync(out);
  const packages = [];
  for (const name of readdirSync(join(root, 'packages'))) {
    const dir = join(root, 'packages', name);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    if (manifest.private) continue;
    if (!existsSync(join(dir, 'dist')))
      throw new Error(`${manifest.name} is not built: run pnpm build first`);
    const before = new Set(readdirSync(out));
    execFileSync('pnpm', ['pack', '--pack-destination', out], { cwd: dir, stdio: 'ignore' });
    const file = readdirSync(out).find((entry) => !before.has(entry));
    const tarball = readFileSync(join(out, file));
    const packed = JSON.parse(
      execFileSync('tar', ['-xzOf', join(out, file), 'package/package.json'], { encoding: 'utf8' }),
    );
    packages.push({
      manifest: packed,
      file,
      path: join(out, file),
      shasum: createHash('sha1').update(tarball).digest('hex'),
      integrity: `sha512-${createHash('sha512').update(tarball).digest('base64')}`,
    });
  }
  return packages;
}

/** The `@svc` scope of a registry: one packument per packed package, and its tarball. */
async function serveRegistry(packages) {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname).slice(1);
    const byName = packages.find((p) => p.manifest.name === path);
    const byFile = packages.find((p) => path === `-/${p.file}`);
    res.setHeader('cache-control', 'no-store');
    if (byName) {
      const { manifest } = byName;
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          name: manifest.name,
          'dist-tags': { latest: manifest.version },
          versions: {
            [manifest.version]: {
              ...manifest,
              _id: `${manifest.name}@${manifest.version}`,
              dist: {
                tarball: `${url}/-/${byName.file}`,
                shasum: byName.shasum,
                integrity: byName.integrity,
              },
            },
          },
        }),
      );
    } else if (byFile) {
      res.setHeader('content-type', 'application/octet-stream');
      res.end(readFileSync(byFile.path));
    } else {
      res.statusCode = 404;
      res.end('{"error":"not found"}');
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${server.address().port}`;
  return { server, url };
}

/** The demo gateway from the workspace, as `bash scripts/demo.sh` starts it. */
async function startDemo() {
  if (await portAnswers(DEMO_PORT)) {
    throw new Error(
      `127.0.0.1:${DEMO_PORT} is taken: stop what listens there (the pages talk to the demo on it)`,
    );
  }
  // With scripts/demo.sh (the README's quick start), so Ctrl-C is checked as a reader sees it.
  // The developer's own environment (pnpm's store, HOME), not a reader's empty one.
  const own = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(GATEWAY_|OPERATOR_|REDIS_|PORT$|HOST$)/.test(name),
    ),
  );
  const child = launch('bash', ['scripts/demo.sh'], {
    cwd: root,
    env: { ...own, ALLOW_LOOPBACK_CALLBACKS: '1' },
  });
  const up = await waitForServer(child, INSTALL_MS, -1);
  if (up.kind !== 'server') throw new Error(`the demo gateway did not start:\n${child.output()}`);
  return child;
}

/** Splits a page into its code blocks and inline command spans, in order. */
function readPage(markdown) {
  const lines = markdown.split(/\r?\n/);
  const items = [];
  let marker;
  let previousText = '';
  for (let i = 0; i < lines.length; i += 1) {
    const text = lines[i];
    const markerMatch = /^\s*<!--\s*snippet:\s*([\w-]+)(?:\s*:([^>]*))?\s*-->\s*$/.exec(text);
    if (markerMatch) {
      marker = { mode: markerMatch[1], reason: markerMatch[2]?.trim() };
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(text);
    if (!fence) {
      if (text.trim() !== '') {
        marker = undefined;
        previousText = text;
        for (const span of text.matchAll(/`((?:npx|npm) [^`]+)`/g)) {
          items.push({ kind: 'inline', line: i + 1, command: span[1] });
        }
      }
      continue;
    }
    const [, indent, ticks, lang] = fence;
    const start = i + 1;
    const body = [];
    for (
      i += 1;
      i < lines.length && !new RegExp(`^\\s*\\${ticks[0]}{${ticks.length},}\\s*$`).test(lines[i]);
      i += 1
    ) {
      body.push(lines[i].startsWith(indent) ? lines[i].slice(indent.length) : lines[i]);
    }
    const first = body[0] ?? '';
    // A file the reader creates: named on the block's first line (`// server.mts`, `# dir/file.yaml`)
    // or by the sentence right before the block ending with the name in backticks and a colon.
    const fileName =
      /^(?:\/\/|#)\s*((?:[\w.-]+\/)*[\w.-]+\.(?:m?ts|m?js|cjs|cts|json|ya?ml|html))(?:\s|$)/.exec(
        first,
      )?.[1] ?? /`((?:[\w.-]+\/)*[\w.-]+\.(?:json|ya?ml))`:\s*$/.exec(previousText)?.[1];
    items.push({
      kind: 'block',
      line: start,
      lang: lang.toLowerCase(),
      code: `${body.join('\n')}\n`,
      fileName,
      marker,
    });
    marker = undefined;
    previousText = '';
  }
  return items;
}

/** Shell lines of a block: comments dropped, `\` continuations joined, `&&` chains kept whole. */
function commandLines(code) {
  const commands = [];
  let pending = '';
  for (const raw of code.split('\n')) {
    const line = raw.replace(/\s+#(?![^'"]*['"][^'"]*$).*$/, '').trimEnd();
    if (line.trim() === '' || line.trim().startsWith('#')) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    commands.push(`${pending}${line}`.trim());
    pending = '';
  }
  return commands;
}

/** The program a shell line runs, after `VAR=value` assignments. */
function programOf(command) {
  const words = command.split(/\s+/);
  const first = words.find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
  return first ?? 'export';
}

async function checkPage(page, baseEnv, packages) {
  const docs = page.startsWith('docs/');
  const result = { page, ran: 0, skipped: [], failures: [] };
  const items = readPage(readFileSync(join(root, page), 'utf8'));
  const folder = join(scratch, 'pages', page.replace(/[^\w.-]+/g, '_'));
  mkdirSync(folder, { recursive: true });
  const env = { ...baseEnv };
  const servers = [];
  const where = (line) => `${page}:${line}`;
  const fail = (line, what, output = '') => {
    const tail = output
      .trim()
      .split('\n')
      .filter(
        (line) =>
          !/^\s+at |^Node\.js v|^npm error (404 [ NT]|404$|A complete log)/.test(line) &&
          line.trim() !== '',
      )
      .slice(-6)
      .join('\n        ');
    result.failures.push(`${where(line)}: ${what}${tail ? `\n        ${tail}` : ''}`);
  };

  // What the page asks the reader to run, so a saved snippet that a command runs is not run twice.
  const commandText = items
    .flatMap((item) =>
      item.kind === 'inline' ? [item.command] : isShell(item) ? commandLines(item.code) : [],
    )
    .join('\n');
  const steps = [];
  for (const item of items) {
    if (item.kind === 'inline') {
      steps.push({ line: item.line, command: item.command });
      continue;
    }
    if (isShell(item)) {
      if (item.marker?.mode === 'typecheck-only') continue;
      for (const command of commandLines(item.code)) steps.push({ line: item.line, command });
      continue;
    }
    if (
      item.fileName &&
      !['ts', 'typescript', 'mts', 'js', 'javascript', 'mjs'].includes(item.lang)
    ) {
      steps.push({ line: item.line, file: item.fileName, code: item.code });
      continue;
    }
    if (!['ts', 'typescript', 'mts', 'js', 'javascript', 'mjs'].includes(item.lang)) continue;
    // A reader cannot install what is not published.
    const unpublished = importedPackages(item.code).filter(
      (name) => name.startsWith('@svc/') && !packages.some((p) => p.manifest.name === name),
    );
    if (unpublished.length > 0)
      fail(item.line, `a snippet imports ${unpublished.join(', ')}, which is not published`);
    if (docs && !item.fileName) continue;
    const file =
      item.fileName ??
      `snippet-${item.line}.${item.lang.startsWith('j') || item.lang === 'mjs' ? 'js' : 'ts'}`;
    const skip =
      item.marker?.mode === 'typecheck-only'
        ? `typecheck-only${item.marker.reason ? `: ${item.marker.reason}` : ''}`
        : undefined;
    const runByPage = commandText.includes(file);
    steps.push({
      line: item.line,
      file,
      code: item.code,
      snippet: true,
      run: !docs && !skip && !runByPage,
      skip,
    });
  }
  const shellSteps = steps.filter(
    (step) => step.command && (docs ? DOCS_COMMANDS : READER_COMMANDS).has(programOf(step.command)),
  );
  if (shellSteps.length === 0 && !steps.some((step) => step.run)) {
    for (const step of steps)
      if (step.command)
        result.skipped.push(`${where(step.line)} ${step.command} (repository command)`);
    return result;
  }

  // An empty project, as the reader makes it.
  const init = await runCommand('npm init -y', folder, env, INSTALL_MS);
  if (init.code !== 0) {
    fail(0, '`npm init -y` failed', init.output);
    return result;
  }
  for (const step of steps) {
    if (step.file) {
      const target = join(folder, step.file);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, step.code);
      if (!step.snippet) continue;
      if (step.skip) {
        result.skipped.push(`${where(step.line)} ${step.file} (${step.skip})`);
        continue;
      }
      const missing = undeclaredImports(step.code, folder);
      if (missing.length > 0) {
        fail(
          step.line,
          `${step.file} imports ${missing.join(', ')}, which the page never installs`,
        );
      }
      if (!step.run) continue;
      await runStep(step.line, `node ${step.file}`);
      continue;
    }
    const program = programOf(step.command);
    if (!(docs ? DOCS_COMMANDS : READER_COMMANDS).has(program)) {
      result.skipped.push(`${where(step.line)} ${step.command} (repository command)`);
      continue;
    }
    if (program === 'export') {
      for (const [, name, value] of step.command.matchAll(
        /([A-Za-z_]\w*)=("[^"]*"|'[^']*'|\S*)/g,
      )) {
        env[name] = value.replace(/^["']|["']$/g, '');
      }
      result.ran += 1;
      continue;
    }
    const unset = [...step.command.matchAll(/\$\{?([A-Za-z_]\w*)/g)]
      .map((m) => m[1])
      .filter(
        (name) => env[name] === undefined && !new RegExp(`(^|\\s)${name}=`).test(step.command),
      );
    if (step.command.includes('…')) {
      result.skipped.push(
        `${where(step.line)} ${step.command} (a template: the reader completes the "…")`,
      );
      continue;
    }
    if (unset.length > 0) {
      result.skipped.push(
        `${where(step.line)} ${step.command} (a template: the reader supplies $${unset[0]})`,
      );
      continue;
    }
    await runStep(step.line, step.command);
  }
  for (const server of servers) {
    if (!(await stop(server.child)))
      fail(
        server.line,
        `\`${server.command}\` did not stop on Ctrl-C (SIGINT) within ${STOP_MS / 1000} s`,
      );
  }
  return result;

  async function runStep(line, command) {
    result.ran += 1;
    if (verbose) console.log(`$ ${command}    (${where(line)})`);
    const child = launch('bash', ['-c', command], { cwd: folder, env });
    const outcome = await waitForServer(
      child,
      /^npm (install|i|ci) /.test(command) ? INSTALL_MS : COMMAND_MS,
    );
    if (outcome.kind === 'exited') {
      if (outcome.code !== 0)
        fail(line, `\`${command}\` exited with ${outcome.code}`, child.output());
    } else if (outcome.kind === 'server') {
      servers.push({ child, line, command });
    } else {
      stopGroup(child, 'SIGKILL');
      fail(
        line,
        `\`${command}\` neither ended nor printed a listening address within ${COMMAND_MS / 1000} s`,
        child.output(),
      );
    }
  }
}

function isShell(item) {
  return item.kind === 'block' && ['sh', 'bash', 'shell', 'console'].includes(item.lang);
}

/** Bare imports of a snippet whose package is not a dependency in the reader's package.json. */
function undeclaredImports(code, folder) {
  const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8'));
  const declared = new Set([
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.devDependencies ?? {}),
  ]);
  return importedPackages(code).filter((name) => !declared.has(name));
}

/** The packages a snippet imports (bare specifiers; `node:` builtins and relative paths left out). */
function importedPackages(code) {
  const names = new Set();
  for (const [, specifier] of code.matchAll(
    /(?:from\s+|import\s*\(\s*|import\s+)['"]([^'"]+)['"]/g,
  )) {
    if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:'))
      continue;
    names.add(
      specifier.startsWith('@')
        ? specifier.split('/').slice(0, 2).join('/')
        : specifier.split('/')[0],
    );
  }
  return [...names];
}

/** Starts a command in its own process group, collecting its output. */
function launch(command, argv, { cwd, env }) {
  const child = spawn(command, argv, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set();
  const collect = (chunk) => {
    output += chunk;
    if (output.length > 200_000) output = output.slice(-100_000);
    for (const listener of listeners) listener();
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  child.output = () => output;
  child.onOutput = (listener) => listeners.add(listener);
  child.exited = new Promise((done) =>
    child.on('exit', (code, signal) => {
      children.delete(child);
      child.stopped = true;
      done({ code: code ?? signal });
    }),
  );
  children.add(child);
  return child;
}

/** Resolves when the command exits, or prints a loopback address that then accepts connections. */
async function waitForServer(child, timeoutMs, ignoredPort = DEMO_PORT) {
  let timer;
  const timeout = new Promise((done) => {
    timer = setTimeout(() => done({ kind: 'timeout' }), timeoutMs);
  });
  const serving = new Promise((done) => {
    const seen = new Set();
    child.onOutput(() => {
      for (const match of child
        .output()
        .matchAll(/https?:\/\/(?:127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1\]):(\d+)/g)) {
        const port = Number(match[1]);
        if (seen.has(port) || port === ignoredPort) continue;
        seen.add(port);
        void portAnswers(port).then((ok) => ok && done({ kind: 'server', port }));
      }
    });
  });
  const exited = child.exited.then(({ code }) => ({ kind: 'exited', code }));
  try {
    return await Promise.race([exited, serving, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function portAnswers(port) {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

function runCommand(command, cwd, env, timeoutMs) {
  const child = launch('bash', ['-c', command], { cwd, env });
  let timer;
  return Promise.race([
    child.exited.then(({ code }) => ({ code, output: child.output() })),
    new Promise((done) => {
      timer = setTimeout(() => {
        stopGroup(child, 'SIGKILL');
        done({ code: 'timeout', output: child.output() });
      }, timeoutMs);
    }),
  ]).finally(() => clearTimeout(timer));
}

function stopGroup(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {}
}

/** Ctrl-C: SIGINT to the process group, then SIGKILL after STOP_MS. */
async function stop(child) {
  if (child.stopped) return true;
  stopGroup(child, 'SIGINT');
  let timer;
  await Promise.race([
    child.exited,
    new Promise((done) => {
      timer = setTimeout(done, STOP_MS);
    }),
  ]);
  clearTimeout(timer);
  if (child.stopped) return true;
  stopGroup(child, 'SIGKILL');
  await child.exited;
  return false;
}
