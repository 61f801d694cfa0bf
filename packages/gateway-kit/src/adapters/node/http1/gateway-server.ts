// `serve()`'s HTTP/1.1 server: node:net sockets, requests read by the kit's own strict reader and
// handed to the gateway without Node's IncomingMessage and ServerResponse (docs/benchmarks.md).

import { Server, type Socket } from 'node:net';
import type { GatewayReply } from '../../../http/gateway-call.ts';
import {
  type DrainLimits,
  INTERNAL_ERROR,
  MISSING_HOST,
  type NodeGateway,
} from '../to-node-handler.ts';
import { Connection, type ConnectionOwner } from './connection.ts';
import type { Exchange } from './exchange.ts';

/** The limits of a {@link GatewayServer}, in milliseconds (`0` turns one off). */
export interface GatewayServerLimits {
  readonly requestTimeout: number;
  readonly headersTimeout: number;
  readonly keepAliveTimeout: number;
  readonly sendTimeout: number;
}

/**
 * The server `serve()` listens with: a `node:net` server that speaks HTTP/1.1 to the gateway. Its
 * timeouts are read on every check, so changing one applies to open connections too; checks run
 * once a second, or at a quarter of the shortest timeout it had when it started listening.
 *
 * @example
 * const { server } = await serve(gateway, { port: 0 });
 * server.keepAliveTimeout = 10_000;
 */
export class GatewayServer extends Server {
  /** Time allowed to receive a whole request, in ms; `0` turns it off. */
  requestTimeout: number;
  /** Time allowed to receive the request headers, in ms; `0` turns it off. */
  headersTimeout: number;
  /** Idle time after which a kept-alive connection is closed, in ms; `0` turns it off. */
  keepAliveTimeout: number;
  /** Time an answer may wait for its client to take it, in ms; `0` turns it off. */
  sendTimeout: number;
  readonly #owner: Owner;

  /** @internal Made by `serve()`. */
  constructor(gateway: NodeGateway, limits: GatewayServerLimits) {
    // Answers go out as soon as they are written (Node's HTTP server does the same).
    super({ noDelay: true });
    this.requestTimeout = limits.requestTimeout;
    this.headersTimeout = limits.headersTimeout;
    this.keepAliveTimeout = limits.keepAliveTimeout;
    this.sendTimeout = limits.sendTimeout;
    const owner = new Owner(this, gateway);
    this.#owner = owner;
    this.on('connection', (socket: Socket) => owner.accept(socket));
    this.on('listening', () => owner.startChecks());
    this.on('close', () => owner.stopChecks());
  }

  /** Closes every connection that has no request under way. */
  closeIdleConnections(): void {
    for (const connection of this.#owner.connections) connection.closeIfIdle();
  }

  /** Closes every connection, requests under way included. */
  closeAllConnections(): void {
    for (const connection of this.#owner.connections) connection.socket.destroy();
  }

  /**
   * Stops accepting connections; open ones close once their request under way is answered (idle
   * ones at once with {@link GatewayServer.closeIdleConnections}).
   */
  override close(callback?: (error?: Error) => void): this {
    this.#owner.closing = true;
    return super.close(callback);
  }
}

/** What the connections of one server share: its limits, its gateway, and the list of them. */
class Owner implements ConnectionOwner {
  readonly connections = new Set<Connection>();
  readonly drain: DrainLimits;
  readonly trustProxy: boolean;
  readonly wantsQuery: boolean;
  closing = false;
  readonly #server: GatewayServer;
  readonly #gateway: NodeGateway;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(server: GatewayServer, gateway: NodeGateway) {
    this.#server = server;
    this.#gateway = gateway;
    this.drain = gateway.limits;
    this.trustProxy = gateway.trustProxy;
    this.wantsQuery = gateway.wantsQuery;
  }

  get requestTimeout(): number {
    return this.#server.requestTimeout;
  }
  get headersTimeout(): number {
    return this.#server.headersTimeout;
  }
  get keepAliveTimeout(): number {
    return this.#server.keepAliveTimeout;
  }
  get sendTimeout(): number {
    return this.#server.sendTimeout;
  }

  accept(socket: Socket): void {
    this.connections.add(new Connection(socket, this));
  }

  forget(connection: Connection): void {
    this.connections.delete(connection);
  }

  serve(exchange: Exchange, connection: Connection): void {
    const gateway = this.#gateway;
    const host = exchange.header('host');
    const refused =
      host === undefined && exchange.head.minorVersion === 1
        ? MISSING_HOST
        : gateway.refuseForeignHost(host, exchange.header('origin'), connection.socket);
    if (refused) {
      connection.answer(exchange, refused);
      return;
    }
    const answer = (reply: GatewayReply): void => connection.answer(exchange, reply);
    if (gateway.respond) {
      gateway.respond(exchange, answer);
      return;
    }
    gateway.handle(exchange).then(answer, () => answer(INTERNAL_ERROR));
  }

  /** Checks every connection's timeouts, once a second or at a quarter of the shortest one. */
  startChecks(): void {
    const server = this.#server;
    const shortest = Math.min(
      ...[
        server.requestTimeout,
        server.headersTimeout,
        server.keepAliveTimeout,
        server.sendTimeout,
        this.drain.timeoutMs,
      ].filter((ms) => ms > 0),
    );
    const every = Math.max(10, Math.min(1_000, Math.floor(shortest / 4)));
    this.#timer = setInterval(() => {
      const now = performance.now();
      for (const connection of this.connections) connection.check(now);
    }, every);
    this.#timer.unref();
  }

  stopChecks(): void {
    clearInterval(this.#timer);
  }
}
