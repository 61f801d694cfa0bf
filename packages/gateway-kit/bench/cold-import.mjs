// One cold-import sample, run in a fresh process by run.mjs: time from just before `import()`
// until the module graph has evaluated, excluding Node's own start-up. Prints milliseconds.
const specifiers = process.argv
  .slice(2)
  .map((path) => (path.startsWith('.') ? new URL(path, import.meta.url).href : path));
const start = performance.now();
for (const specifier of specifiers) await import(specifier);
process.stdout.write(String(performance.now() - start));
