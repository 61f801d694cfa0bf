import { build } from 'esbuild';
import { expect, it } from 'vitest';

// The option schemas (valibot, built at module level) must drop out of a bundle that does not
// call createGateway: every call that builds them is /* @__PURE__ */ or @__NO_SIDE_EFFECTS__.
// Bundles the published build (run after `pnpm build`): its entries share chunks, where only
// those annotations let a bundler drop a schema ("sideEffects": false drops whole files only).
const dist = new URL('../dist/', import.meta.url).pathname;
const OPTION_SCHEMA_TEXT = [
  'expected an options object', // gateway/validate-options.ts
  'is not a known hook', // observe/hooks-schema.ts
  'whsec_<base64>', // callbacks/callback-options-schema.ts
  'expected a non-empty token string', // gateway/validate-auth.ts
  'expected a function.', // runtime/option-schemas.ts (OptionalFunction)
];

async function bundle(names: string): Promise<string> {
  const result = await build({
    stdin: { contents: `export { ${names} } from './index.js';`, loader: 'js', resolveDir: dist },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
    logLevel: 'silent',
    external: ['valibot', '@valibot/to-json-schema', '@opentelemetry/api'],
  });
  return result.outputFiles[0]?.text ?? '';
}

it.each(['defineAction', 'MemoryJobStore, MemoryRecordStore'])(
  'a bundle of { %s } holds none of the option schemas',
  async (names) => {
    const code = await bundle(names);
    for (const text of OPTION_SCHEMA_TEXT) expect(code, text).not.toContain(text);
  },
);

it('a bundle of { createGateway } holds them all (the check above can fail)', async () => {
  const code = await bundle('createGateway');
  for (const text of OPTION_SCHEMA_TEXT) expect(code, text).toContain(text);
});
