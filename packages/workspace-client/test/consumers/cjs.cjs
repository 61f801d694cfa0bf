// CommonJS consumer: resolves the packed package through its exports map.
const assert = require('node:assert/strict');
const {
  createWorkspaceClient,
  defineDebrief,
  NotFoundError,
  WorkspaceError,
} = require('@svc/workspace-client');
const { createWorkspaceEmulator } = require('@svc/workspace-client/emulator');

(async () => {
  const emulator = createWorkspaceEmulator();
  const client = createWorkspaceClient({
    baseUrl: 'http://emulator.local',
    apiKey: 'wk_test_example',
    fetch: (input, init) => emulator.handle(new Request(input, init)),
  });
  const debrief = defineDebrief({
    externalId: 'consumer:cjs',
    title: 'CJS',
    pages: [{ title: 'P', html: '<p>cjs</p>' }],
  });
  assert.equal((await client.debriefs.upsert(debrief)).externalId, 'consumer:cjs');
  const error = await client.skills.delete('missing').catch((e) => e);
  assert.ok(error instanceof NotFoundError && error instanceof WorkspaceError);
  console.log('cjs consumer ok');
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
