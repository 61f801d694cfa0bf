import { parseArgs } from 'node:util';
import { checkGateway } from '../check/check-gateway.ts';
import { validateCheckOptions } from '../check/options.ts';
import { formatCheck, formatSummary } from './format-human.ts';
import { formatJUnit } from './format-junit.ts';

/** What the CLI talks to; `process` and `node:fs` in the bin, fakes in tests. */
export interface CliIo {
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly writeFile: (path: string, text: string) => Promise<void>;
}

export const USAGE = `Usage: svc-gateway-check --url URL [--token TOKEN] [options]

Checks a gateway against Gateway Contract v1. Exit code:
  0  passed: the run completed and no check failed
  1  contract broken: the run completed and a check failed (or was skipped, with --fail-on-skip)
  2  could not run: bad arguments, the gateway could not be reached or refused the token
     (401 to GET /v1/manifest), or the overall deadline passed

  --url URL             gateway base address, e.g. http://127.0.0.1:8787
  --token TOKEN         bearer token (default: the SVC_GATEWAY_TOKEN environment variable)
  --only PATTERN        run only matching checks (repeatable or comma-separated): a check id,
                        a prefix such as auth-bearer or job-cancel, or a pattern with * wildcards
  --json                print the report as JSON on stdout (nothing else)
  --junit FILE          also write the report as JUnit XML to FILE
  --allow-writes        also invoke actions whose sideEffectLevel is not "read"
  --callback-host HOST  where the gateway can reach this machine (a name or an IP, no port);
                        enables the callback checks
  --callback-port N     the port the callback receiver listens on, and the gateway is given
                        (default: a free one): for a gateway that reaches this machine through
                        one forwarded or opened port; needs --callback-host or --callback-url
  --callback-url URL    the public base URL of a tunnel or reverse proxy forwarding to this
                        machine, e.g. https://abc.tunnel.example/prefix: the gateway calls back
                        under it (prefix kept), the receiver listens on 127.0.0.1 (or
                        --callback-host) port --callback-port (needed) and takes the path with
                        the prefix kept or stripped; enables the callback checks. https expected;
                        no query, fragment or credentials; printed only as its origin
  --timeout MS          deadline of each request (default 10000)
  --job-timeout MS      how long a job may take to finish (default 20000)
  --deadline MS         deadline of the whole run (default 120000)
  --max-actions N       check at most the first N actions of the manifest (default 100)
  --fail-on-skip        exit 1 when a check was skipped, too
  --help                this text`;

/** A number flag as a number when it is digits only; anything else is left for the check to name. */
const numeric = (value: string | undefined): number | string | undefined =>
  value !== undefined && /^\d+$/.test(value) ? Number(value) : value;

/**
 * Runs the CLI with `argv` (without node and script) and resolves with the exit code.
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2), io);
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  let options: ReturnType<typeof parse>;
  try {
    options = parse(argv, io.env);
  } catch (error) {
    io.err(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (options === 'help') {
    io.out(USAGE);
    return 0;
  }
  const { json, junit, failOnSkip, ...check } = options;
  const report = await checkGateway({
    ...check,
    ...(json ? {} : { onCheck: (result) => io.out(formatCheck(result)) }),
  });
  // A run that stopped at the manifest (unreachable, token refused) says why, whatever --only.
  if (report.checks.length === 0 && !report.incomplete) {
    io.err('No check matched --only; nothing was checked.');
    return 2;
  }
  if (junit) await io.writeFile(junit, formatJUnit(report));
  if (json) io.out(JSON.stringify(report, null, 2));
  else io.out(`\n${formatSummary(report)}`);
  if (report.incomplete) {
    io.err(`svc-gateway-check: could not run to the end: ${report.incomplete}`);
    return 2;
  }
  return report.counts.failed > 0 || (failOnSkip && report.counts.skipped > 0) ? 1 : 0;
}

function parse(argv: readonly string[], env: CliIo['env']) {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    allowPositionals: false,
    options: {
      url: { type: 'string' },
      token: { type: 'string' },
      only: { type: 'string', multiple: true },
      json: { type: 'boolean' },
      junit: { type: 'string' },
      'allow-writes': { type: 'boolean' },
      'callback-host': { type: 'string' },
      'callback-port': { type: 'string' },
      'callback-url': { type: 'string' },
      timeout: { type: 'string' },
      'job-timeout': { type: 'string' },
      deadline: { type: 'string' },
      'max-actions': { type: 'string' },
      'fail-on-skip': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) return 'help' as const;
  const url = values.url;
  const token = values.token ?? env.SVC_GATEWAY_TOKEN;
  const only = (values.only ?? [])
    .flatMap((p) => p.split(','))
    .map((p) => p.trim())
    .filter(Boolean);
  const numbers = {
    timeoutMs: numeric(values.timeout),
    jobTimeoutMs: numeric(values['job-timeout']),
    deadlineMs: numeric(values.deadline),
    maxActions: numeric(values['max-actions']),
  };
  const callbackHost = values['callback-host'] || undefined;
  const callbackPort = numeric(values['callback-port']);
  const callbackUrl = values['callback-url'] || undefined;
  // The same checks, and messages, as checkGateway's, with the options named as flags.
  validateCheckOptions(
    { url, token, only, callbackHost, callbackPort, callbackUrl, ...numbers },
    true,
  );
  const { timeoutMs, jobTimeoutMs, deadlineMs, maxActions } = numbers as Record<
    keyof typeof numbers,
    number | undefined
  >;
  return {
    url: url as string,
    token: token as string,
    only,
    allowWrites: values['allow-writes'] ?? false,
    ...(callbackHost ? { callbackHost } : {}),
    ...(callbackPort === undefined ? {} : { callbackPort: callbackPort as number }),
    ...(callbackUrl ? { callbackUrl } : {}),
    ...(timeoutMs ? { timeoutMs } : {}),
    ...(jobTimeoutMs ? { jobTimeoutMs } : {}),
    ...(deadlineMs ? { deadlineMs } : {}),
    ...(maxActions ? { maxActions } : {}),
    json: values.json ?? false,
    junit: values.junit,
    failOnSkip: values['fail-on-skip'] ?? false,
  };
}
