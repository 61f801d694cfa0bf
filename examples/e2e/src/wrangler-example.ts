import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exampleDir, type RunningExample, startExample } from './example-process.ts';

/** The wrangler CLI of examples/cloudflare, run with the Node that runs the tests. */
const WRANGLER = join(exampleDir('cloudflare'), 'node_modules/wrangler/bin/wrangler.js');

/** A new, empty persistence folder (what `wrangler dev --persist-to` keeps between runs). */
export function persistenceFolder(): { readonly path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'svc-cloudflare-state-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/**
 * Starts examples/cloudflare as its docs say (`wrangler dev`, workerd on this machine), on a free
 * port, with `vars` as Worker bindings (`--var`, as `.dev.vars` or `wrangler secret` would set
 * them) and its Durable Objects' storage in `persistTo`.
 */
export function startWrangler(options: {
  readonly vars: Readonly<Record<string, string>>;
  readonly persistTo: string;
}): Promise<RunningExample> {
  const vars = Object.entries(options.vars).flatMap(([name, value]) => [
    '--var',
    `${name}:${value}`,
  ]);
  return startExample({
    example: 'cloudflare',
    command: process.execPath,
    args: [
      WRANGLER,
      'dev',
      '--ip',
      '127.0.0.1',
      '--port',
      '0',
      '--inspector-port',
      '0',
      '--persist-to',
      options.persistTo,
      '--log-level',
      'info',
      ...vars,
    ],
    env: { WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1', FORCE_COLOR: '0', CI: 'true' },
    listening: /Ready on (http:\/\/\S+)/,
    startTimeoutMs: 60_000,
  });
}
