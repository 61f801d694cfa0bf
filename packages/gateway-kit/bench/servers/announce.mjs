// Every server runs in its own child process (see ../run.mjs): it listens on a free loopback
// port, reports it (and the path prefix it serves under, if any) over IPC and exits with its
// parent, so no server outlives a run.
export function announce(server) {
  server.listen(0, '127.0.0.1', () => reportPort(server.address().port));
}

export function reportPort(port, prefix = '') {
  process.send?.({ port, prefix });
  process.on('disconnect', () => process.exit(0));
}
