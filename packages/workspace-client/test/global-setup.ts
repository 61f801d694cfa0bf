import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The CLI tests run the built bins: build once when `dist` is missing (turbo normally has). */
export default function setup(): void {
  const bins = ['bin.js', 'svc-workspace.js'];
  if (bins.every((file) => existsSync(join(root, 'dist', file)))) return;
  const tsup = join(
    dirname(createRequire(import.meta.url).resolve('tsup/package.json')),
    'dist',
    'cli-default.js',
  );
  execFileSync(process.execPath, [tsup], { cwd: root, stdio: 'inherit' });
}
