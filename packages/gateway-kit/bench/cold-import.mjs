// One cold-import sample, run in a fresh process by run.mjs: time from just before `import()`
// until the module graph has evaluated, excluding Node's own start-up. Prints milliseconds.
// `--after=node:http` loads that module first, outside the measurement: every Node HTTP server
// pays for node:http itself (≈ 20–35 ms on this Node build), so the package's own cost is the
// time on top of it.
const args = process.argv.slice(2);
const preload = args.filter((arg) => arg.startsWith('--after=')).map((arg) => arg.slice(8));
const specifiers = args
  .filter((arg) => !arg.startsWith('--after='))
  .map((path) => (path.startsWith('.') ? new URL(path, import.meta.url).href : path));
for (const specifier of preload) await import(specifier);
const start = performance.now();
for (const specifier of specifiers) await import(specifier);
process.stdout.write(String(performance.now() - start));
