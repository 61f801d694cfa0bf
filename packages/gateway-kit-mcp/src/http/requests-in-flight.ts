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
 * Bounds the requests of one session that are being answered: a request over `max`, or one whose
 * id is already in flight, is answered at once with a JSON-RPC `InvalidRequest` error and never
 * reaches the server. A request counts from its arrival until its answer is sent, or until the
 * client cancels it (`notifications/cancelled`: the server then sends no answer). Call it after
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
  // By id: JSON-RPC ids are unique among a sender's requests in flight, and the SDK keeps one
  // handler per id (a cancel reaches only the last), so a reused id is refused, not counted twice.
  const pending = new Set<RequestId>();
  const send = transport.send.bind(transport);
  const dispatch = transport.onmessage;
  const refuse = (id: RequestId, message: string, data?: Record<string, unknown>): void => {
    void send({
      jsonrpc: '2.0',
      id,
      error: { code: ErrorCode.InvalidRequest, message, ...(data ? { data } : {}) },
    }).catch(() => {});
  };
  transport.send = (message, options) => {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      if (message.id !== undefined) pending.delete(message.id);
    }
    return send(message, options);
  };
  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      if (pending.has(message.id)) {
        refuse(message.id, 'A request with this id is already in flight in this session.');
        return;
      }
      if (pending.size >= max) {
        refuse(
          message.id,
          `At most ${max} requests of one MCP session are answered at once; wait for an answer, then retry.`,
          { quota: 'requestsInFlight', limit: max, retryable: true },
        );
        return;
      }
      pending.add(message.id);
    } else if (isJSONRPCNotification(message) && message.method === 'notifications/cancelled') {
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) pending.delete(id);
    }
    dispatch?.(message, extra);
  };
}
