#!/usr/bin/env node
import { writeFile } from 'node:fs/promises';
import { runCli } from './run-cli.ts';

void runCli(process.argv.slice(2), {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
  env: process.env,
  writeFile: (path, text) => writeFile(path, text, 'utf8'),
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(
      `svc-gateway-check: ${error instanceof Error ? error.message : String(error)}\n`,
    );
    process.exitCode = 2;
  },
);
