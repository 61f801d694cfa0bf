import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const dist = `${root}dist/index.js`;

/** Bundles `names` from the built package for the browser, minified, and returns the code. */
async function bundle(names: string): Promise<string> {
  const result = await build({
    stdin: {
      contents: `export { ${names} } from ${JSON.stringify(dist)};`,
      loader: 'js',
      resolveDir: root,
    },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]?.text ?? '';
}

describe('tree-shaking of the published build', () => {
  it('leaves the skill and agent schemas out of the debrief publisher path', async () => {
    const code = await bundle('createDebriefsClient, defineDebrief');
    expect(code).toContain('svc-debrief-v1');
    expect(code).not.toContain('svc-nova'); // agent persona list
    expect(code).not.toContain('gatewayAccessMode'); // agent schema
    expect(code).not.toContain('Expected an array of skill slugs'); // agent schema
    expect(code).not.toContain('slugify');
  });

  it('leaves every schema out of an errors-only import', async () => {
    const code = await bundle('WorkspaceError, WorkspaceApiError');
    expect(code).not.toContain('svc-debrief-v1');
    expect(code).not.toContain('Unknown field');
    expect(code.length).toBeLessThan(2000);
  });
});
