import { type DebriefInput, debrief, debriefExternalId } from '@svc/workspace-client';

/** ISO-8601 week of a date, e.g. `2025-W01`. */
export function isoWeek(date: Date): string {
  const day = new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));
  const weekday = day.getUTCDay() || 7; // Monday 1 … Sunday 7
  day.setUTCDate(day.getUTCDate() + 4 - weekday); // the Thursday of this week decides the year
  const yearStart = Date.UTC(day.getUTCFullYear(), 0, 1);
  const week = Math.ceil(((day.getTime() - yearStart) / 86_400_000 + 1) / 7);
  return `${day.getUTCFullYear()}-W${String(week).padStart(2, '0')}`;
}

/**
 * The debrief this example publishes: a weekly pipeline review for one account.
 * The external id is derived from what the debrief is about (report, account, week), never from
 * the time of the run, so re-running the script for the same week updates the same debrief.
 */
export function weeklyReview(account: string, week: string): DebriefInput {
  return debrief({
    externalId: debriefExternalId('pipeline-review', account, week),
    title: `${account} pipeline review — ${week}`,
    summary: 'Three deals moved to negotiation; one is at risk.',
    source: 'publish-debrief-node-example',
  })
    .opening(`Good morning. Here is the ${account} pipeline for ${week} in under two minutes.`)
    .instructions('Keep answers short; offer to open the risk page if asked about churn.')
    .page({
      title: 'Moved to negotiation',
      html: '<h1>3 deals advanced</h1><ul><li>Globex — €120k</li><li>Initech — €80k</li><li>Umbrella — €45k</li></ul>',
      speech: 'Three deals moved to negotiation, worth 245 thousand euros together.',
    })
    .section({ title: 'Wins', speech: 'Globex is the largest, at 120 thousand.' })
    .page({
      title: 'At risk',
      html: '<h1>1 deal at risk</h1><p>Hooli: the champion left the company.</p>',
      speech: 'One deal is at risk.',
    })
    .section({ title: 'Risk', speech: 'Hooli lost its champion; we need a new sponsor.' })
    .build();
}
