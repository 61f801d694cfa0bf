import { type DebriefInput, debrief, debriefExternalId } from '@svc/workspace-client';

/**
 * The debrief this page publishes. The external id comes from what the debrief is about
 * (report, account, week): publishing again for the same week updates the same debrief.
 */
export function weeklyReview(account: string, week: string): DebriefInput {
  return debrief({
    externalId: debriefExternalId('pipeline-review', account, week),
    title: `${account} pipeline review — ${week}`,
    summary: 'Three deals moved to negotiation; one is at risk.',
    source: 'publish-debrief-browser-example',
  })
    .opening(`Good morning. Here is the ${account} pipeline for ${week} in under two minutes.`)
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
