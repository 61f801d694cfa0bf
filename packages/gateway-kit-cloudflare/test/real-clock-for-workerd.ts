// workerd cannot start under libfaketime: even `workerd --version` hangs before printing anything.
// When the suite runs with the clock moved (`faketime '+400 days' pnpm test`), each test process
// keeps the moved clock (libfaketime is already loaded into it) and the workerd processes it starts
// (through Miniflare, which passes on this environment) run on the real one. Without libfaketime
// in the environment this changes nothing.
const preload = process.env.LD_PRELOAD;
if (preload?.includes('faketime')) {
  const kept = preload
    .split(/[:\s]+/)
    .filter((library) => library !== '' && !library.includes('faketime'));
  if (kept.length > 0) process.env.LD_PRELOAD = kept.join(':');
  else delete process.env.LD_PRELOAD;
  for (const name of Object.keys(process.env))
    if (name === 'FAKETIME' || name.startsWith('FAKETIME_')) delete process.env[name];
}
