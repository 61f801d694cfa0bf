import { build } from 'esbuild';

/**
 * Bundles a worker module for workerd (ES module, Web platform), with `@svc/gateway-kit` resolved
 * to its source through the workspace, and the global names of `define` replaced by their JSON.
 * Returns the bundle's code.
 */
export async function bundleWorker(
  entry: string,
  define: Record<string, unknown> = {},
): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    define: Object.fromEntries(
      Object.entries(define).map(([name, value]) => [name, JSON.stringify(value)]),
    ),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2023',
    conditions: ['workerd', 'worker', 'browser', 'import'],
    mainFields: ['module', 'main'],
    external: ['cloudflare:*'],
    write: false,
    logLevel: 'silent',
  });
  const file = result.outputFiles[0];
  if (!file) throw new Error(`esbuild produced nothing for ${entry}`);
  return file.text;
}
