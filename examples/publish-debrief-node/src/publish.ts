// Publishes a debrief and reads it back.
//
//   pnpm start                  → against a local workspace emulator started in this process
//   SVC_WORKSPACE_URL=https://… SVC_WORKSPACE_KEY=… pnpm start   → against that workspace
//
// Arguments: [account] [week], e.g. `pnpm start "ACME Corp" 2025-W01` (default: ACME Corp, this week).
import { isDeepStrictEqual } from 'node:util';
import { createWorkspaceClient, WorkspaceError } from '@svc/workspace-client';
import { serveWorkspaceEmulator } from '@svc/workspace-client/emulator/node';
import { isoWeek, weeklyReview } from './weekly-review.ts';

/** Any key works with the emulator; each key is its own isolated workspace. */
const EMULATOR_KEY = 'wk_local_example';

const baseUrlFromEnv = process.env.SVC_WORKSPACE_URL;
const keyFromEnv = process.env.SVC_WORKSPACE_KEY;
if (Boolean(baseUrlFromEnv) !== Boolean(keyFromEnv)) {
  console.error(
    'Set both SVC_WORKSPACE_URL and SVC_WORKSPACE_KEY (a real workspace), or neither (the local emulator).',
  );
  process.exit(2);
}

const [account = 'ACME Corp', week = isoWeek(new Date())] = process.argv.slice(2);
const emulator = baseUrlFromEnv ? undefined : await serveWorkspaceEmulator({ port: 0 });
const baseUrl = baseUrlFromEnv ?? emulator!.url;
console.log(
  emulator
    ? `Workspace: local emulator at ${baseUrl} (set SVC_WORKSPACE_URL and SVC_WORKSPACE_KEY for a real workspace)`
    : `Workspace: ${baseUrl}`,
);

const client = createWorkspaceClient({ baseUrl, apiKey: keyFromEnv ?? EMULATOR_KEY });

try {
  const draft = weeklyReview(account, week);
  const saved = await client.debriefs.upsert(draft);
  console.log(`Published debrief ${saved.externalId}`);

  // Read it back through the other route, as the contract suggests, and compare.
  const stored = await client.debriefs.get(draft.externalId);
  console.log(JSON.stringify(stored, null, 2));
  // Compare what this script controls (a real service may add fields of its own).
  const storedTitles = stored.contract?.canvas?.pages?.map((page) => page.title) ?? [];
  const sentTitles = draft.contract.canvas.pages.map((page) => page.title);
  const pages = storedTitles.length;
  if (stored.externalId !== draft.externalId || !isDeepStrictEqual(storedTitles, sentTitles)) {
    console.error(`Read back ${stored.externalId}, but it differs from what was published.`);
    process.exitCode = 1;
  } else {
    console.log(
      `Stored: debrief ${stored.externalId} ("${stored.title}", ${pages} pages) reads back as published.`,
    );
  }
} catch (error) {
  // Workspace errors never contain the key; print the message and the status if there is one.
  if (!(error instanceof WorkspaceError)) throw error;
  console.error(`Publishing failed: ${error.name}: ${error.message}`);
  process.exitCode = 1;
} finally {
  await emulator?.close();
}
