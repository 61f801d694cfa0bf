// Runs inside headless Chromium (bundled by run.mjs): publishes a debrief to the emulator
// on another origin, the way a browser app should — with a short-lived token function.
import { createWorkspaceClient, defineDebrief, WorkspaceConfigError } from '../../dist/index.js';

const results = [];
const check = (name, ok, detail = '') => results.push({ name, ok: Boolean(ok), detail });

async function main() {
  const baseUrl = new URLSearchParams(location.search).get('api');
  try {
    createWorkspaceClient({ baseUrl, apiKey: 'wk_test_browser_example' });
    check('refuses a workspace key string in a browser', false, 'no error thrown');
  } catch (error) {
    check('refuses a workspace key string in a browser', error instanceof WorkspaceConfigError);
  }

  // The safe pattern: ask your backend for a short-lived token (here: a fake one).
  const client = createWorkspaceClient({ baseUrl, apiKey: async () => 'wk_test_browser_token' });
  const debrief = defineDebrief({
    externalId: 'browser:publish',
    title: 'Published from a page',
    pages: [{ title: 'Hello', html: '<h1>Hello from Chromium</h1>', speech: 'Hello.' }],
  });
  const saved = await client.debriefs.upsert(debrief);
  check('publishes a debrief across origins (CORS)', saved.externalId === 'browser:publish');
  const fetched = await client.debriefs.get('browser:publish');
  check(
    'reads it back with GET /debriefs/:externalId',
    JSON.stringify(fetched.contract) === JSON.stringify(debrief.contract),
  );
}

main()
  .catch((error) => check('page script', false, String(error?.stack ?? error)))
  .finally(() => {
    window.__results = results;
  });
