// Packs the package in the current directory as npm would publish it, installs the tarball into a
// scratch project, and runs the given consumer fixtures (ESM and CJS) there. The package's
// dependencies and peer dependencies are linked from the workspace, so no network is needed.
// Usage (from a package's check:package script): node ../../scripts/run-packed-consumers.mjs test/consumers/*.{mjs,cjs}
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
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';

const packageDir = process.cwd();
const fixtures = process.argv.slice(2).map((fixture) => resolve(fixture));
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
    if (!existsSync(source)) continue;
    const target = join(scratch, 'node_modules', dependency);
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(realpathSync(source), target, 'dir');
  }
  for (const fixture of fixtures) {
    const copy = join(scratch, basename(fixture));
    cpSync(fixture, copy);
    process.stdout.write(
      execFileSync(process.execPath, [copy], { cwd: scratch, encoding: 'utf8' }),
    );
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
