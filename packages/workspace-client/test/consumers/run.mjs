// Packs the package, installs the tarball into a scratch project (dependencies linked from
// this workspace, so no network is needed) and runs the ESM and CJS consumer fixtures.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'workspace-client-consumers-'));
try {
  execFileSync('pnpm', ['pack', '--pack-destination', scratch], { cwd: pkg, stdio: 'ignore' });
  const tarball = readdirSync(scratch).find((name) => name.endsWith('.tgz'));
  const target = join(scratch, 'node_modules', '@svc', 'workspace-client');
  mkdirSync(target, { recursive: true });
  execFileSync('tar', ['-xzf', join(scratch, tarball), '-C', target, '--strip-components=1']);
  for (const dep of ['ky', 'valibot', 'msw']) {
    symlinkSync(realpathSync(join(pkg, 'node_modules', dep)), join(scratch, 'node_modules', dep));
  }
  for (const fixture of ['esm.mjs', 'cjs.cjs']) {
    cpSync(join(here, fixture), join(scratch, fixture));
    execFileSync(process.execPath, [join(scratch, fixture)], { cwd: scratch, stdio: 'inherit' });
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
