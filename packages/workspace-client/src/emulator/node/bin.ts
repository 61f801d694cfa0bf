#!/usr/bin/env node
import { parseFlags, UsageError } from '../../cli/args.ts';
import { LOCAL_ORIGINS } from '../cors.ts';
import { createWorkspaceEmulator } from '../emulator.ts';
import { serveWorkspaceEmulator } from './serve.ts';

const usage = `Usage: svc-workspace-emulator [--port <n>] [--host <address>]

Runs an in-memory workspace API at http://<host>:<port>/api/v1/org.
Any "Authorization: Bearer <key>" is accepted; each key has its own workspace.

  -p, --port   port to listen on (env PORT; default 4010, 0 picks a free port)
      --host   address to bind (env HOST; default 127.0.0.1)
      --allow-origin <origin>
               also accept browser calls from this origin (repeatable; pages on
               localhost, 127.0.0.1 and [::1] are always accepted)
      --allow-host <name>
               also answer requests addressed to this host name (repeatable;
               localhost, 127.0.0.1, [::1] and the listening address always are)
      --max-body-bytes <n>
               largest request body (default 1048576)
  -h, --help   show this help`;

/** The command line's flags; a mistake prints one line naming the flag and the usage (exit 2). */
function flags() {
  try {
    return parseFlags(
      process.argv.slice(2),
      {
        port: { type: 'string', short: 'p' },
        host: { type: 'string' },
        'allow-origin': { type: 'string', multiple: true },
        'allow-host': { type: 'string', multiple: true },
        'max-body-bytes': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      false,
    ).values;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`${error.message}\n\n${usage}`);
    process.exit(2);
  }
}

async function main(): Promise<void> {
  const values = flags();
  if (values.help) {
    console.log(usage);
    return;
  }
  const rawPort = values.port ?? process.env.PORT ?? '4010';
  const port = Number(rawPort);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`Invalid port "${rawPort}"\n\n${usage}`);
    process.exit(2);
  }
  const maxBodyBytes = Number(values['max-body-bytes'] ?? 1024 * 1024);
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) {
    console.error(`Invalid --max-body-bytes "${values['max-body-bytes']}"\n\n${usage}`);
    process.exit(2);
  }
  const emulator = createWorkspaceEmulator({
    allowedOrigins: [...LOCAL_ORIGINS, ...(values['allow-origin'] ?? [])],
    allowedHosts: values['allow-host'] ?? [],
    maxBodyBytes,
  });
  const server = await serveWorkspaceEmulator({
    port,
    host: values.host ?? process.env.HOST,
    emulator,
  });
  console.log(`svc workspace emulator listening on ${server.url}`);
  const stop = (): void => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
