// Packs the package as npm would publish it, installs the tarball into a scratch project (its
// dependencies linked from this workspace, so no network), then runs an ESM and a CJS consumer.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..', '..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
const scratch = mkdtempSync(join(tmpdir(), 'gateway-kit-redis-consumer-'));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', scratch], {
    cwd: packageDir,
    stdio: 'ignore',
  });
  const tarball = join(scratch, `svc-gateway-kit-redis-${manifest.version}.tgz`);
  const installed = join(scratch, 'node_modules', '@svc', 'gateway-kit-redis');
  mkdirSync(installed, { recursive: true });
  execFileSync('tar', ['-xzf', tarball, '-C', installed, '--strip-components=1']);

  // The peer @svc/gateway-kit comes from the workspace (its own dependencies resolve from there).
  for (const dependency of ['@svc/gateway-kit', ...Object.keys(manifest.dependencies ?? {})]) {
    const target = join(scratch, 'node_modules', dependency);
    mkdirSync(dirname(target), { recursive: true });
    // pnpm links every (dev) dependency into the package's own node_modules.
    const resolved = realpathSync(join(packageDir, 'node_modules', dependency));
    try {
      symlinkSync(resolved, target, 'dir');
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
  }
  for (const consumer of ['consumer.mjs', 'consumer.cjs']) {
    cpSync(join(here, consumer), join(scratch, consumer));
    const output = execFileSync(process.execPath, [join(scratch, consumer)], {
      cwd: scratch,
      encoding: 'utf8',
    });
    process.stdout.write(output);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
