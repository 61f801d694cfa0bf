// Packs the package in the current directory as npm would publish it, installs the tarball into a
// scratch project, and runs the given consumer fixtures (ESM and CJS) there. The package's
// dependencies and peer dependencies are linked from the workspace, so no network is needed.
// Usage (from a package's check:package script): node ../../scripts/run-packed-consumers.mjs test/consumers/*.{mjs,cjs}
// A TypeScript fixture (.mts / .cts / .ts) is typechecked instead, with the workspace's tsc and
// strict settings, skipLibCheck off, so the published declarations are checked as a user's tsc
// would. A fixture named `*.node10.ts` is typechecked as an older CommonJS project is
// (`module: commonjs`, `moduleResolution: node`, which ignores `exports`; esModuleInterop and
// @types/node).
// `--omit <dependency>` leaves an (optional peer) dependency uninstalled; `--skip-lib-check`
// turns skipLibCheck on, for a dependency whose own declarations fail under node10 (msw).
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

const packageDir = process.cwd();
const args = process.argv.slice(2);
const omitted = new Set();
const skipLibCheck = args.includes('--skip-lib-check');
if (skipLibCheck) args.splice(args.indexOf('--skip-lib-check'), 1);
for (let index = args.indexOf('--omit'); index !== -1; index = args.indexOf('--omit')) {
  omitted.add(args[index + 1]);
  args.splice(index, 2);
}
const fixtures = args.map((fixture) => resolve(fixture));
if (fixtures.length === 0) throw new Error('usage: run-packed-consumers.mjs <fixture>...');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const scratch = mkdtempSync(join(tmpdir(), `${manifest.name.replace(/\W+/g, '-')}-consumers-`));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', scratch], {
    cwd: packageDir,
    stdio: 'ignore',
  });
  const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
  const installed = join(scratch, 'node_modules', ...manifest.name.split('/'));
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', join(scratch, tarball), '-C', installed, '--strip-components=1']);

  const linked = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ];
  for (const dependency of linked) {
    // pnpm links every dependency (dev ones included) into the package's own node_modules; an
    // optional peer that is not installed there is simply absent for the consumers too.
    const source = join(packageDir, 'node_modules', dependency);
    if (!existsSync(source) || omitted.has(dependency)) continue;
    const target = join(scratch, 'node_modules', dependency);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(realpathSync(source), target, 'dir');
  }
  for (const fixture of fixtures) {
    const copy = join(scratch, basename(fixture));
    cpSync(fixture, copy);
    if (/\.[mc]?ts$/.test(copy)) {
      typecheck(copy);
      continue;
    }
    process.stdout.write(
      execFileSync(process.execPath, [copy], { cwd: scratch, encoding: 'utf8' }),
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

/** Typechecks one fixture in the scratch project; tsc's diagnostics fail the run. */
function typecheck(file) {
  const require = createRequire(join(packageDir, 'package.json'));
  const tsc = require.resolve('typescript/bin/tsc');
  const compilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck,
    types: [],
    target: 'es2022',
    lib: ['es2023', 'dom'],
    module: 'nodenext',
    moduleResolution: 'nodenext',
  };
  if (file.endsWith('.node10.ts')) {
    const typesNode = join(dirname(file), 'node_modules', '@types', 'node');
    if (!existsSync(typesNode)) {
      mkdirSync(dirname(typesNode), { recursive: true });
      symlinkSync(dirname(require.resolve('@types/node/package.json')), typesNode, 'dir');
    }
    // esModuleInterop as `tsc --init` sets it: the declarations of redis and zod need it.
    Object.assign(compilerOptions, {
      types: ['node'],
      module: 'commonjs',
      moduleResolution: 'node',
      esModuleInterop: true,
    });
    // TypeScript 6 deprecates node10 resolution; users still on it silence the deprecation.
    const major = Number(require('typescript/package.json').version.split('.')[0]);
    if (major >= 6) compilerOptions.ignoreDeprecations = '6.0';
  }
  const project = join(dirname(file), `${basename(file)}.tsconfig.json`);
  writeFileSync(project, JSON.stringify({ compilerOptions, files: [basename(file)] }));
  try {
    execFileSync(process.execPath, [tsc, '-p', project], { cwd: dirname(file), encoding: 'utf8' });
  } catch (error) {
    throw new Error(`tsc failed on ${basename(file)}:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
  }
  process.stdout.write(`${basename(file)}: the published declarations typecheck\n`);
}
