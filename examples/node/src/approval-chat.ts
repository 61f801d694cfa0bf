import type { GatewayHooks } from '@svc/gateway-kit';

/**
 * Hooks that post every new approval to a chat incoming webhook (Slack, Mattermost, Teams and
 * Google Chat all accept `{ "text": … }`), with a link to the approvals page. The post is not
 * awaited by the gateway: a slow or failing chat service changes no answer, and a failure is
 * logged by the gateway ("hook failed"). The approval's input stays out of the message.
 */
export function approvalChatHooks(
  webhookUrl: string,
  approvalsPageUrl: () => string,
): GatewayHooks {
  return {
    onApprovalRequested: async (event) => {
      const response = await fetch(webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          text: `Approval requested: ${event.actionName} — ${event.reason}\nDecide before ${event.expiresAt}: ${approvalsPageUrl()}`,
        }),
        // Everything the gateway calls has a deadline; so does this hook.
        signal: AbortSignal.timeout(5_000),
      });
      await response.body?.cancel();
      if (!response.ok) throw new Error(`The chat webhook answered ${response.status}.`);
    },
  };
}
