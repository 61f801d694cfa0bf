/**
 * Escapes text for HTML content and quoted attribute values.
 *
 * @example
 * ```ts
 * escapeHtml('<b>"Q3" & more</b>'); // '&lt;b&gt;&quot;Q3&quot; &amp; more&lt;/b&gt;'
 * ```
 */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(
    /[&<>"']/g,
    (char) =>
      ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[char] ?? char,
  );
}

/**
 * Security headers of every preview page: no script runs in the page, and each canvas page's
 * HTML runs in an `<iframe sandbox>` (no scripts, no same-origin access, no forms, no
 * navigation of the preview), so a debrief cannot act on the emulator.
 *
 * @example
 * ```ts
 * new Response(renderDebrief(debrief), { headers: PREVIEW_HEADERS });
 * ```
 */
export const PREVIEW_HEADERS: Readonly<Record<string, string>> = /* @__PURE__ */ Object.freeze({
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data: blob: http: https:; font-src data: http: https:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
});

const STYLE = `
body{font:15px/1.45 system-ui,sans-serif;margin:0;background:#f4f5f7;color:#1d2330}
header,main{max-width:1040px;margin:0 auto;padding:16px 24px}
header{background:#1d2330;color:#fff;max-width:none}
header a{color:#9ecbff}
h1{font-size:22px;margin:4px 0}
.meta{color:#5b6475;font-size:13px}
header .meta{color:#c8cfdb}
section.card{background:#fff;border:1px solid #dde1e8;border-radius:8px;padding:16px;margin:16px 0}
.speech{border-left:4px solid #4c8bf5;background:#eef4ff;padding:8px 12px;margin:8px 0;white-space:pre-wrap}
.speech::before{content:"Says: ";font-weight:600;color:#2f5fb3}
header code{background:#2c3446;color:#fff}
iframe{width:100%;height:320px;border:1px solid #c5cbd6;border-radius:4px;background:#fff}
table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #e3e6ec;padding:6px 8px;text-align:left;vertical-align:top}
code{background:#eef0f4;padding:1px 4px;border-radius:3px}
.error{color:#b3261e}
`;

/** A complete HTML document around `body`. */
export function previewDocument(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

type Loose = Record<string, unknown>;
const record = (value: unknown): Loose =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Loose) : {};
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const speech = (text: unknown, label: string): string =>
  text === undefined || text === ''
    ? `<p class="meta">${escapeHtml(label)}: (none)</p>`
    : `<div class="speech" data-speech="${escapeHtml(label)}">${escapeHtml(text)}</div>`;

/**
 * Renders a debrief as it is presented: the opening speech, each canvas page (its HTML in a
 * sandboxed frame) with the speech said over it, and the spoken sections with their `pageIndex`
 * and `delivery`. Reads the debrief loosely, so a stored debrief with missing parts still
 * renders what it has. Serve it with `PREVIEW_HEADERS` (no script, sandboxed frames).
 *
 * @example
 * ```ts
 * const html = renderDebrief(defineDebrief({ externalId: 'w1', title: 'W1', pages }));
 * return new Response(html, { headers: PREVIEW_HEADERS });
 * ```
 */
export function renderDebrief(debrief: unknown, back?: { href: string; label: string }): string {
  const d = record(debrief);
  const contract = record(d.contract);
  const svc = record(contract.svc);
  const canvas = record(contract.canvas);
  const actions = record(contract.actions);
  const pages = list(canvas.pages).map(record);
  const sections = list(contract.sections).map(record);
  const title = String(contract.title ?? d.title ?? d.externalId ?? 'Debrief');
  const audience = record(d.audience);
  const groups = list(audience.groupSlugs).map(escapeHtml).join(', ');

  const pageCards = pages
    .map(
      (page, index) => `<section class="card" id="page-${index}" data-page="${index}">
<h2>Page ${index}: ${escapeHtml(page.title)}</h2>
<iframe title="${escapeHtml(page.title)}" sandbox="" referrerpolicy="no-referrer" loading="eager" srcdoc="${escapeHtml(page.html)}"></iframe>
${speech(page.speech, `page ${index} speech`)}
</section>`,
    )
    .join('\n');
  const sectionRows = sections
    .map((section, index) => {
      const pageIndex = section.pageIndex;
      const target =
        typeof pageIndex === 'number' && pageIndex >= 0 && pageIndex < pages.length
          ? `<a href="#page-${pageIndex}">${pageIndex}</a> (${escapeHtml(pages[pageIndex]?.title)})`
          : `<span class="error">${escapeHtml(pageIndex)} — no such page</span>`;
      return `<tr data-section="${index}"><td>${index}</td><td>${escapeHtml(section.title)}</td><td>${target}</td><td><code>${escapeHtml(section.delivery)}</code></td><td>${speech(section.speech, `section ${index} speech`)}</td></tr>`;
    })
    .join('\n');

  const body = `<header>
${back === undefined ? '' : `<a href="${escapeHtml(back.href)}">← ${escapeHtml(back.label)}</a>`}
<h1>${escapeHtml(title)}</h1>
<div class="meta"><code>${escapeHtml(d.externalId)}</code> · status ${escapeHtml(d.status ?? '—')} · ${escapeHtml(contract.version ?? 'no contract version')}${d.source === undefined ? '' : ` · source ${escapeHtml(d.source)}`}${d.audience === undefined ? '' : ` · audience ${escapeHtml(audience.type)}${groups ? ` (${groups})` : ''}`}</div>
</header>
<main>
<section class="card" id="opening">
<h2>Opening</h2>
${contract.summary ? `<p>${escapeHtml(contract.summary)}</p>` : ''}
${speech(svc.openingSpeech, 'opening speech')}
<p class="meta">delivery <code>${escapeHtml(svc.delivery)}</code> · canvas “${escapeHtml(canvas.title)}”, mode <code>${escapeHtml(canvas.deliveryMode)}</code> · speak to room ${escapeHtml(actions.speakToRoom)} · open canvas ${escapeHtml(actions.openCanvas)}</p>
${svc.instructions ? `<p class="meta">Instructions for the assistant: ${escapeHtml(svc.instructions)}</p>` : ''}
</section>
<section class="card" id="sections">
<h2>Sections (${sections.length})</h2>
<table><thead><tr><th>#</th><th>Title</th><th>pageIndex</th><th>delivery</th><th>Speech</th></tr></thead><tbody>
${sectionRows}
</tbody></table>
</section>
<h2>Canvas pages (${pages.length})</h2>
${pageCards}
</main>`;
  return previewDocument(`${title} — debrief preview`, body);
}

/** One stored debrief in the list. */
export interface PreviewListItem {
  /** Link to the debrief's preview page. */
  readonly href: string;
  /** Label of the workspace that holds the debrief. */
  readonly workspace: string;
  /** The stored debrief, as returned by the API. */
  readonly debrief: unknown;
}

/**
 * Renders a list of debriefs, each linking to its preview page.
 *
 * @example
 * ```ts
 * renderDebriefList([{ href: '/_preview/1/w1', workspace: 'workspace 1', debrief }]);
 * ```
 */
export function renderDebriefList(items: readonly PreviewListItem[]): string {
  const rows = items
    .map(({ href, workspace, debrief }) => {
      const d = record(debrief);
      return `<tr><td>${escapeHtml(workspace)}</td><td><a href="${escapeHtml(href)}">${escapeHtml(d.title ?? d.externalId)}</a></td><td><code>${escapeHtml(d.externalId)}</code></td><td>${list(record(record(d.contract).canvas).pages).length}</td><td>${escapeHtml(d.updatedAt ?? '')}</td></tr>`;
    })
    .join('\n');
  const body = `<header><h1>Stored debriefs</h1><div class="meta">Workspace emulator preview · ${items.length} debrief(s)</div></header>
<main><section class="card"><table><thead><tr><th>Workspace</th><th>Title</th><th>externalId</th><th>Pages</th><th>Updated</th></tr></thead><tbody>
${rows || '<tr><td colspan="5">No debrief stored yet.</td></tr>'}
</tbody></table></section></main>`;
  return previewDocument('Stored debriefs — workspace emulator', body);
}
