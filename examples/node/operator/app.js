// The approvals page: lists pending approvals of the demo gateway and decides them through the
// operator API on the same origin. Everything shown comes from callers, so it is only ever set
// as text, never as HTML.
const TOKEN_KEY = 'operatorToken';
const REFRESH_MS = 5000;

const $ = (selector) => document.querySelector(selector);
const signIn = $('#sign-in');
const approvalsView = $('#approvals');
const message = $('#message');
const rows = $('#list tbody');

function say(text, isError = false) {
  message.textContent = text;
  message.classList.toggle('error', isError);
}

function showSignIn(reason) {
  sessionStorage.removeItem(TOKEN_KEY);
  approvalsView.hidden = true;
  signIn.hidden = false;
  $('#token').focus();
  if (reason) say(reason, true);
}

async function api(path, init = {}) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const response = await fetch(path, {
    ...init,
    headers: { ...init.headers, authorization: `Bearer ${token}` },
  });
  if (response.status === 401) {
    showSignIn('The operator token was refused. Enter it again.');
    return undefined;
  }
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
  return body;
}

function cell(row, content) {
  const td = row.insertCell();
  if (typeof content === 'string') td.textContent = content;
  else td.append(content);
  return td;
}

function render(approvals) {
  rows.replaceChildren();
  $('#empty').hidden = approvals.length > 0;
  $('#list').hidden = approvals.length === 0;
  for (const approval of approvals) {
    const row = rows.insertRow();
    row.dataset.approvalId = approval.approvalId;
    const action = cell(row, approval.actionName);
    const id = document.createElement('span');
    id.className = 'id';
    id.textContent = approval.approvalId;
    action.append(id);
    const input = document.createElement('pre');
    input.textContent = JSON.stringify(approval.input, null, 2);
    cell(row, input);
    cell(row, approval.reason);
    const expires = document.createElement('time');
    expires.dateTime = approval.expiresAt;
    expires.textContent = new Date(approval.expiresAt).toLocaleString();
    cell(row, expires);
    const buttons = cell(row, '');
    for (const [label, approved] of [
      ['Approve', true],
      ['Deny', false],
    ]) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = label;
      button.addEventListener('click', () => decide(approval, approved, row));
      buttons.append(button);
    }
  }
}

/** Pending approvals, oldest first: at most PAGES pages of 50 (the API pages with a cursor). */
const PAGES = 4;
async function pendingApprovals() {
  const approvals = [];
  let cursor;
  for (let page = 0; page < PAGES; page++) {
    const query = `status=pending&limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const body = await api(`api/approvals?${query}`);
    if (!body) return undefined;
    approvals.push(...body.approvals);
    cursor = body.nextCursor;
    if (!cursor) break;
  }
  return approvals;
}

async function load() {
  try {
    const approvals = await pendingApprovals();
    if (!approvals) return;
    signIn.hidden = true;
    approvalsView.hidden = false;
    render(approvals);
    $('#updated').textContent = `Updated ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    say(`Could not load approvals: ${error.message}`, true);
  }
}

async function decide(approval, approved, row) {
  for (const button of row.querySelectorAll('button')) button.disabled = true;
  try {
    const body = await api(`api/approvals/${encodeURIComponent(approval.approvalId)}/decision`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ approved }),
    });
    if (!body) return;
    const job = body.job ? ` Job ${body.job.jobId} is ${body.job.status}.` : '';
    say(
      `${approved ? 'Approved' : 'Denied'} ${approval.approvalId} (${approval.actionName}).${job}`,
    );
  } catch (error) {
    say(`Could not decide ${approval.approvalId}: ${error.message}`, true);
  }
  await load();
}

signIn.addEventListener('submit', (event) => {
  event.preventDefault();
  const token = $('#token').value.trim();
  if (!token) return;
  sessionStorage.setItem(TOKEN_KEY, token);
  $('#token').value = '';
  say('');
  void load();
});
$('#refresh').addEventListener('click', () => void load());
$('#sign-out').addEventListener('click', () => showSignIn(''));
setInterval(() => {
  if (sessionStorage.getItem(TOKEN_KEY) && !approvalsView.hidden) void load();
}, REFRESH_MS);

if (sessionStorage.getItem(TOKEN_KEY)) void load();
else showSignIn('');
