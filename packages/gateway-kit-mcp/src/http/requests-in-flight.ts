import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';

/**
 * JSON-RPC requests one MCP session may have waiting for their answer at once (`tools/call`
 * following a job or an approval, `tasks/result` waiting for a task …).
 */
export const MAX_REQUESTS_IN_FLIGHT = 32;

/**
 * Bounds the requests of one session that are being answered: a request over `max` is answered at
 * once with a JSON-RPC `InvalidRequest` error and never reaches the server. A request counts from
 * its arrival until its answer is sent, or until the client cancels it
 * (`notifications/cancelled`: the server then sends no answer). Call it after
 * `server.connect(transport)`, which installs the transport's `onmessage`.
 *
 * Without it, a client could leave any number of calls waiting (a batch of 100 per POST, the
 * connection dropped at once), each polling the gateway and held in memory for up to `waitMs` or
 * a task's TTL.
 *
 * @example
 * await server.connect(transport);
 * limitRequestsInFlight(transport, MAX_REQUESTS_IN_FLIGHT);
 */
export function limitRequestsInFlight(transport: Transport, max: number): void {
  // By request id: a client may reuse one, and each of its answers ends one of them.
  const pending = new Map<RequestId, number>();
  let total = 0;
  const settle = (id: RequestId): void => {
    const count = pending.get(id);
    if (count === undefined) return;
    total -= 1;
    if (count === 1) pending.delete(id);
    else pending.set(id, count - 1);
  };
  const send = transport.send.bind(transport);
  const dispatch = transport.onmessage;
  transport.send = (message, options) => {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) settle(message.id);
    }
    return send(message, options);
  };
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      if (total >= max) {
        void send({
          jsonrpc: '2.0',
          id: message.id,
          error: {
            code: ErrorCode.InvalidRequest,
            message: `At most ${max} requests of one MCP session are answered at once; wait for an answer, then retry.`,
            data: { quota: 'requestsInFlight', limit: max, retryable: true },
          },
        }).catch(() => {});
        return;
      }
      total += 1;
      pending.set(message.id, (pending.get(message.id) ?? 0) + 1);
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) settle(id);
    }
    dispatch?.(message, extra);
  };
}
