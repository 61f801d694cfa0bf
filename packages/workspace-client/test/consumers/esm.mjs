// ESM consumer: resolves the packed package through its exports map.
import assert from 'node:assert/strict';
import {
  createWorkspaceClient,
  defineDebrief,
  NotFoundError,
  WorkspaceValidationError,
} from '@svc/workspace-client';
import { createWorkspaceEmulator } from '@svc/workspace-client/emulator';
import { serveWorkspaceEmulator } from '@svc/workspace-client/emulator/node';
import { workspaceHandlers } from '@svc/workspace-client/mock';

const emulator = createWorkspaceEmulator();
const client = createWorkspaceClient({
  baseUrl: 'http://emulator.local',
  apiKey: 'wk_test_example',
  fetch: (input, init) => emulator.handle(new Request(input, init)),
});
const debrief = defineDebrief({
  externalId: 'consumer:esm',
  title: 'ESM',
  pages: [{ title: 'P', html: '<p>esm</p>' }],
});
assert.equal((await client.debriefs.upsert(debrief)).externalId, 'consumer:esm');
assert.deepEqual((await client.debriefs.get('consumer:esm')).contract, debrief.contract);
await assert.rejects(client.debriefs.get('missing'), NotFoundError);
await assert.rejects(
  client.skills.upsert({ name: 'x', instructions: 'y', organizationId: 'o' }),
  WorkspaceValidationError,
);
assert.equal(workspaceHandlers({ emulator }).length, 1);
const server = await serveWorkspaceEmulator();
const overHttp = createWorkspaceClient({ baseUrl: server.url, apiKey: 'wk_test_example' });
assert.deepEqual(await overHttp.skills.list(), []);
await server.close();
console.log('esm consumer ok');
