// The page: builds a debrief with the builder, publishes it with the debriefs client and reads
// it back. The workspace URL comes from `?api=<url>` or from the page backend's /config.json.
import { createDebriefsClient, WorkspaceError } from '@svc/workspace-client';
import { shortLivedToken } from './token.ts';
import { weeklyReview } from './weekly-review.ts';

/** What /config.json answers (see scripts/dev-server.ts). */
interface PageConfig {
  workspaceUrl: string;
  tokenUrl: string;
}

const $ = <T extends HTMLElement>(selector: string) => document.querySelector(selector) as T;
const form = $<HTMLFormElement>('#publish');
const status = $<HTMLParagraphElement>('#status');
const result = $<HTMLPreElement>('#result');

function show(text: string, state: 'working' | 'done' | 'error'): void {
  status.textContent = text;
  status.dataset.state = state;
}

async function loadConfig(): Promise<PageConfig> {
  const response = await fetch('./config.json');
  if (!response.ok) throw new Error(`config.json answered ${response.status}`);
  const config = (await response.json()) as PageConfig;
  const api = new URLSearchParams(location.search).get('api');
  return api ? { ...config, workspaceUrl: api } : config;
}

async function main(): Promise<void> {
  const config = await loadConfig();
  $('#workspace').textContent = `Workspace: ${config.workspaceUrl}`;
  const debriefs = createDebriefsClient({
    baseUrl: config.workspaceUrl,
    apiKey: shortLivedToken(config.tokenUrl), // never a key string in a page
  });

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const data = new FormData(form);
    const account = String(data.get('account'));
    const week = String(data.get('week'));
    show('Publishing…', 'working');
    result.hidden = true;
    try {
      const draft = weeklyReview(account, week);
      const saved = await debriefs.upsert(draft);
      const stored = await debriefs.get(saved.externalId);
      const pages = stored.contract?.canvas?.pages?.length ?? 0;
      result.textContent = JSON.stringify(stored, null, 2);
      result.hidden = false;
      show(`Stored: debrief ${stored.externalId} ("${stored.title}", ${pages} pages).`, 'done');
    } catch (error) {
      // Workspace errors are safe to show: they never contain the token.
      const message =
        error instanceof WorkspaceError ? `${error.name}: ${error.message}` : String(error);
      show(`Publishing failed: ${message}`, 'error');
    }
  });
  $<HTMLButtonElement>('button').disabled = false;
}

main().catch((error: unknown) => show(`Could not start: ${String(error)}`, 'error'));
