#!/usr/bin/env node
import { spawnSync } from 'node:child_process';
// Public API reports: one `api/<entry>.api.md` per entry point of every public package, written by
// API Extractor from the built declarations (`dist/*.d.ts`, so run `pnpm build` first).
//
//   node scripts/api-report.mjs           check: fails when a report differs from the built API
//   node scripts/api-report.mjs --update  rewrite the reports (`pnpm api:update` builds, then this)
//
// A change to a public signature therefore fails CI until its report is updated in the same
// commit, where a reviewer sees the signature change as a diff of the report.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative, resolve } from 'node:path';
import { CompilerState, Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = resolve(import.meta.dirname, '..');
const update = process.argv.includes('--update');
const only = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const temp = mkdtempSync(join(tmpdir(), 'api-report-'));

/** Entry points of a package: `{ name, types }` for each `exports` key with ESM declarations. */
function entryPoints(pkg) {
  const entries = [];
  for (const [key, target] of Object.entries(pkg.exports ?? {})) {
    const types = typeof target === 'object' ? target?.import?.types : undefined;
    if (types === undefined) continue;
    const name = key === '.' ? 'index' : key.slice(2).replaceAll('/', '-');
    entries.push({ name, types });
  }
  return entries;
}

/** Messages: the report records what API Extractor notices about the API instead of failing. */
const messages = {
  compilerMessageReporting: { default: { logLevel: 'error' } },
  extractorMessageReporting: {
    default: { logLevel: 'none', addToApiReportFile: false },
    // The packages mark no release stages (every export is public), so these say nothing.
    'ae-missing-release-tag': { logLevel: 'none', addToApiReportFile: false },
  },
  tsdocMessageReporting: { default: { logLevel: 'none', addToApiReportFile: false } },
};

let failed = 0;
let checked = 0;
const packagesDir = join(root, 'packages');
// The API reference (`pnpm docs:api`, TypeDoc) covers the same entry points: every public package
// is listed in typedoc.json and its own typedoc.json names one source per typed export.
const typedocPackages = JSON.parse(readFileSync(join(root, 'typedoc.json'), 'utf8')).entryPoints;

/** Why the API reference misses part of a package's public API, or undefined. */
function typedocGap(dir, pkg, packageDir) {
  if (!typedocPackages.includes(`packages/${dir}`)) return 'not listed in typedoc.json';
  const own = join(packageDir, 'typedoc.json');
  if (!existsSync(own)) return `no ${relative(root, own)} naming its entry points`;
  const sources = JSON.parse(readFileSync(own, 'utf8')).entryPoints ?? [];
  const missing = sources.filter((source) => !existsSync(join(packageDir, source)));
  if (missing.length > 0)
    return `${relative(root, own)} names missing files: ${missing.join(', ')}`;
  const exported = entryPoints(pkg).length;
  if (sources.length !== exported)
    return `${relative(root, own)} names ${sources.length} entry points, package.json exports ${exported}`;
  return undefined;
}
for (const dir of readdirSync(packagesDir).sort()) {
  const packageDir = join(packagesDir, dir);
  const packageJsonPath = join(packageDir, 'package.json');
  if (!existsSync(packageJsonPath)) continue;
  const pkg = JSON.parse(readFileSync(packageJsonPath, 'utf8'));
  if (pkg.private === true) continue;
  if (only.length > 0 && !only.includes(pkg.name)) continue;
  const gap = typedocGap(dir, pkg, packageDir);
  if (gap !== undefined) {
    failed += 1;
    console.error(`api-report: ${pkg.name} is not all in the API reference: ${gap}`);
  }
  const configs = entryPoints(pkg).map(({ name, types }) => {
    const entry = join(packageDir, types);
    if (!existsSync(entry)) {
      throw new Error(`${pkg.name}: ${relative(root, entry)} is missing; run \`pnpm build\` first`);
    }
    return ExtractorConfig.prepare({
      configObjectFullPath: join(packageDir, 'api-extractor.json'),
      packageJsonFullPath: packageJsonPath,
      configObject: {
        projectFolder: packageDir,
        mainEntryPointFilePath: entry,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: 'ES2023',
              lib: ['ES2023', 'DOM', 'DOM.Iterable'],
              module: 'preserve',
              moduleResolution: 'bundler',
              strict: true,
              exactOptionalPropertyTypes: true,
              skipLibCheck: true,
              types: [],
            },
            files: [entry],
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: `${name}.api.md`,
          reportFolder: join(packageDir, 'api'),
          reportTempFolder: join(temp, dir),
          includeForgottenExports: false,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        newlineKind: 'lf',
        messages,
      },
    });
  });
  if (configs.length === 0) continue;
  if (update) mkdirSync(join(packageDir, 'api'), { recursive: true });
  // One TypeScript program per package serves all of its entry points.
  const compilerState = CompilerState.create(configs[0], {
    additionalEntryPoints: configs.map((config) => config.mainEntryPointFilePath),
  });
  for (const config of configs) {
    checked += 1;
    const result = Extractor.invoke(config, {
      localBuild: update,
      compilerState,
      showVerboseMessages: false,
      messageCallback: (message) => {
        // Progress lines ("Analysis will use the bundled TypeScript version ...") are noise here.
        if (message.logLevel === 'info' || message.logLevel === 'verbose') message.handled = true;
        // Its own notes on a changed or new report name a temporary file: this script says it.
        if (message.messageId?.startsWith('console-api-report')) message.handled = true;
      },
    });
    const report = relative(root, config.reportFilePath);
    if (result.errorCount > 0) {
      failed += 1;
      console.error(`api-report: ${report}: ${result.errorCount} error(s)`);
    } else if (result.apiReportChanged && !update) {
      failed += 1;
      const fresh = join(config.reportTempFolder, basename(config.reportFilePath));
      spawnSync('diff', ['-u', config.reportFilePath, fresh], { stdio: 'inherit' });
      console.error(
        `api-report: ${report} differs from the built API of ${pkg.name}. If the change is intended, run \`pnpm api:update\` and commit the report with it.`,
      );
    } else if (result.apiReportChanged) {
      console.log(`api-report: updated ${report}`);
    }
  }
}
rmSync(temp, { recursive: true, force: true });
console.log(
  `api-report: ${checked} entry points ${update ? 'written' : 'checked'}, ${failed} failing`,
);
process.exit(failed > 0 ? 1 : 0);
