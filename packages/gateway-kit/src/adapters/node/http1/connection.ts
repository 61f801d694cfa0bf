// One connection of `serve()`'s server: requests read in turn, each answered before the next is
// read (pipelined requests wait in the socket, not in memory), within the server's timeouts.

import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayReply } from '../../../http/gateway-call.ts';
import { JSON_HEADERS } from '../../../http/replies.ts';
import { clientErrorAnswer } from '../client-errors.ts';
import { type DrainLimits, INTERNAL_ERROR } from '../to-node-handler.ts';
import { ChunkedBody } from './chunked-body.ts';
import { Exchange, type ExchangeHost } from './exchange.ts';
import { readRequestHead } from './request-head.ts';

/** The server's side of its connections: its limits (read on every check) and the gateway. */
export interface ConnectionOwner {
  readonly requestTimeout: number;
  readonly headersTimeout: number;
  readonly keepAliveTimeout: number;
  readonly sendTimeout: number;
  readonly drain: DrainLimits;
  readonly trustProxy: boolean;
  readonly wantsQuery: boolean;
  /** The server is closing: every answer closes its connection. */
  readonly closing: boolean;
  /** Serves one request: the answer comes back through `exchange`'s connection. */
  serve(exchange: Exchange, connection: Connection): void;
  forget(connection: Connection): void;
}

/** Bytes read ahead of the request being answered (pipelined ones) before reading waits. */
const READ_AHEAD_BYTES = 64 * 1024;
/** Bytes of answers not yet taken by the client before the next request waits. */
const WRITE_AHEAD_BYTES = 64 * 1024;

enum Phase {
  /** Between requests: waiting for the first byte of the next one. */
  Idle,
  /** A request head is arriving. */
  Head,
  /** The head is read: the body is arriving, or the answer is being made. */
  Request,
  /** The connection ends once its last answer has gone out. */
  Closing,
}

/** `Date` values, one per second (as Node caches its own). */
let dateSecond = 0;
let dateValue = '';
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateValue = new Date(now).toUTCString();
  }
  return dateValue;
}

/** The common JSON reply's header lines, written once. */
const JSON_HEAD_LINES: string = /* @__PURE__ */ Object.entries(JSON_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');
const STATUS_LINES = new Map<number, string>();
function statusLine(status: number): string {
  let line = STATUS_LINES.get(status);
  if (line === undefined) {
    line = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
    if (status >= 100 && status <= 599) STATUS_LINES.set(status, line);
  }
  return line;
}
// A header value the gateway made may not hold what would end a header line.
const UNSAFE_VALUE = /[\r\n\0]/;
const CONTINUE = '100 Continue';

/**
 * A connection of `serve()`'s server: reads requests with {@link readRequestHead}, one at a time,
 * hands each to its owner, and writes each answer in one write.
 */
export class Connection implements ExchangeHost {
  readonly socket: Socket;
  readonly #owner: ConnectionOwner;
  #buffer: Buffer | undefined;
  /** The store {@link Connection.#append} copies into, once chunks have to be joined. */
  #store: Buffer | undefined;
  /** Bytes of the buffer already searched for the end of a head. */
  #searched = 0;
  #phase = Phase.Head;
  #exchange: Exchange | undefined;
  #chunked: ChunkedBody | undefined;
  /** Content-Length bytes of the current body still to come. */
  #bodyLeft = 0;
  /** The answer waiting for the rest of an unread body to be drained. */
  #pending: GatewayReply | undefined;
  #pumping = false;
  #pumpAgain = false;
  #paused = false;
  /** When the current phase started (`performance.now()`), and the request with it. */
  #since: number;
  #requestSince: number;
  #drainSince = 0;
  /** What was waiting to be sent at the last check, and since when it has not shrunk. */
  #unsentBytes = 0;
  #unsentSince = 0;

  constructor(socket: Socket, owner: ConnectionOwner) {
    this.socket = socket;
    this.#owner = owner;
    this.#since = performance.now();
    this.#requestSince = this.#since;
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('drain', () => this.#pump());
    socket.on('error', () => undefined);
    socket.on('close', () => this.#closed());
  }

  get trustProxy(): boolean {
    return this.#owner.trustProxy;
  }

  get wantsQuery(): boolean {
    return this.#owner.wantsQuery;
  }

  /** Whether no request is under way (the connection may be closed without losing one). */
  get idle(): boolean {
    return this.#phase === Phase.Idle && this.#buffer === undefined;
  }

  resume(): void {
    this.#pump();
  }

  /** Answers the current request (once); `exchange` tells a late answer of an earlier one. */
  answer(exchange: Exchange, reply: GatewayReply): void {
    if (exchange !== this.#exchange || exchange.answered) return;
    exchange.answered = true;
    if (this.socket.destroyed) return;
    if (exchange.bodyEnded) {
      this.#write(exchange, reply, !exchange.head.keepAlive || this.#owner.closing);
      this.#next();
      return;
    }
    // Answered before its body was read: the rest is read and dropped first (closing with unread
    // bytes makes the kernel send a reset, which can destroy the answer before the client reads
    // it), within the drain limits, and the connection then closes.
    const { drain } = this.#owner;
    if (exchange.head.contentLength > drain.maxBytes || drain.timeoutMs === 0) {
      this.#write(exchange, reply, true);
      this.#destroyWhenSent();
      return;
    }
    exchange.discard();
    this.#pending = reply;
    this.#drainSince = performance.now();
    this.#pump();
  }

  /** Checks the timeouts, at `now` (`performance.now()`); called by the server's sweep. */
  check(now: number): void {
    const owner = this.#owner;
    if (this.socket.destroyed) return;
    const unsent = this.socket.writableLength;
    if (this.#unsentBytes === 0 || unsent < this.#unsentBytes) this.#unsentSince = now;
    else if (owner.sendTimeout > 0 && now - this.#unsentSince >= owner.sendTimeout) {
      this.socket.destroy();
      return;
    }
    this.#unsentBytes = unsent;
    switch (this.#phase) {
      case Phase.Idle:
        if (owner.keepAliveTimeout > 0 && now - this.#since >= owner.keepAliveTimeout)
          this.socket.destroy();
        break;
      case Phase.Head:
        if (
          (owner.headersTimeout > 0 && now - this.#since >= owner.headersTimeout) ||
          (owner.requestTimeout > 0 && now - this.#requestSince >= owner.requestTimeout)
        )
          this.#refuse('request_timeout');
        break;
      case Phase.Request: {
        const exchange = this.#exchange!;
        if (exchange.bodyEnded) break;
        if (this.#pending !== undefined) {
          if (now - this.#drainSince >= owner.drain.timeoutMs) this.#drainFailed();
        } else if (owner.requestTimeout > 0 && now - this.#requestSince >= owner.requestTimeout) {
          if (exchange.answered) this.socket.destroy();
          else {
            exchange.answered = true;
            this.#refuse('request_timeout');
          }
        }
        break;
      }
      case Phase.Closing:
        // An answer that ended the connection has gone out; a client that never closes its side
        // does not keep the socket.
        if (unsent === 0 && now - this.#since >= owner.drain.timeoutMs) this.socket.destroy();
        break;
    }
  }

  /** Closes the connection if no request is under way (the server is closing). */
  closeIfIdle(): void {
    if (this.idle) this.socket.destroy();
  }

  #receive(chunk: Buffer): void {
    if (this.#phase === Phase.Closing) return;
    if (this.#phase === Phase.Idle) {
      this.#phase = Phase.Head;
      this.#since = performance.now();
      this.#requestSince = this.#since;
    }
    this.#append(chunk);
    this.#pump();
  }

  /**
   * Adds a chunk to the unread bytes: the chunk itself when nothing else waits, else copied once
   * into a store with room to spare that doubles as it fills, so bytes trickled a few at a time
   * cost their bytes, not a copy of everything before them each time.
   */
  #append(chunk: Buffer): void {
    const buffer = this.#buffer;
    if (buffer === undefined) {
      this.#buffer = chunk;
      return;
    }
    const length = buffer.length + chunk.length;
    const store = this.#store;
    const at =
      store !== undefined && buffer.buffer === store.buffer
        ? buffer.byteOffset - store.byteOffset
        : -1;
    if (at !== -1 && at + length <= store!.length) {
      chunk.copy(store!, at + buffer.length);
      this.#buffer = store!.subarray(at, at + length);
      return;
    }
    const grown = Buffer.allocUnsafeSlow(Math.max(2 * length, 4 * 1024));
    buffer.copy(grown);
    chunk.copy(grown, buffer.length);
    this.#store = grown;
    this.#buffer = grown.subarray(0, length);
  }

  /** Reads what it can of the buffered bytes; re-entered calls run once the current one ends. */
  #pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    try {
      do {
        this.#pumpAgain = false;
        this.#step();
      } while (this.#pumpAgain);
    } finally {
      this.#pumping = false;
    }
  }

  /** One pass: the current body, or the next head; pauses the socket when it must wait. */
  #step(): void {
    for (;;) {
      if (this.#phase === Phase.Closing || this.socket.destroyed) return;
      const exchange = this.#exchange;
      if (exchange !== undefined) {
        if (!exchange.bodyEnded && !this.#readBody(exchange)) return;
        // The body is whole; the answer is being made. Bytes after it are the next request.
        if (this.#pending !== undefined) {
          const reply = this.#pending;
          this.#pending = undefined;
          this.#write(exchange, reply, true);
          return;
        }
        this.#pauseIf((this.#buffer?.length ?? 0) >= READ_AHEAD_BYTES);
        return;
      }
      if (this.#buffer === undefined) {
        this.#pauseIf(false);
        return;
      }
      if (this.socket.writableLength >= WRITE_AHEAD_BYTES) {
        // The client is not taking its answers: the next request waits for it to.
        this.#pauseIf(true);
        return;
      }
      if (this.#phase === Phase.Idle) {
        this.#phase = Phase.Head;
        this.#since = performance.now();
        this.#requestSince = this.#since;
      }
      const read = readRequestHead(this.#buffer, 0, Math.max(0, this.#searched - 3));
      if (read === undefined) {
        this.#searched = this.#buffer.length;
        this.#pauseIf(false);
        return;
      }
      this.#searched = 0;
      if ('code' in read) {
        this.#refuse(read.code);
        return;
      }
      this.#take(read.bodyStart);
      const { head } = read;
      const next = new Exchange(head, this);
      this.#exchange = next;
      this.#phase = Phase.Request;
      this.#since = performance.now();
      if (head.chunked) this.#chunked = new ChunkedBody();
      else this.#bodyLeft = head.contentLength;
      if (head.expectContinue && !next.bodyEnded && this.#buffer === undefined)
        this.socket.write(`HTTP/1.1 ${CONTINUE}\r\n\r\n`);
      if (!next.bodyEnded) this.#readBody(next);
      this.#owner.serve(next, this);
    }
  }

  /** Hands the exchange what has arrived of its body; whether the body has ended. */
  #readBody(exchange: Exchange): boolean {
    while (this.#buffer !== undefined && !exchange.bodyEnded) {
      const room = exchange.room;
      if (room <= 0) break;
      const buffer = this.#buffer;
      if (this.#chunked === undefined) {
        const taken = Math.min(this.#bodyLeft, buffer.length, room);
        exchange.receive(taken === buffer.length ? buffer : buffer.subarray(0, taken));
        this.#take(taken);
        this.#bodyLeft -= taken;
        if (this.#bodyLeft === 0) exchange.end();
      } else {
        // Chunked: decoded in pieces of at most `room` buffered bytes, so a reader's limit holds.
        const piece = room < buffer.length ? buffer.subarray(0, room) : buffer;
        const read = this.#chunked.decode(piece, 0, (bytes) => exchange.receive(bytes));
        if (typeof read !== 'number') {
          if (exchange.answered) this.socket.destroy();
          else {
            exchange.answered = true;
            this.#refuse(read.code);
          }
          return false;
        }
        this.#take(read);
        if (this.#chunked.done) exchange.end();
      }
      if (exchange.discarding && exchange.discarded > this.#owner.drain.maxBytes) {
        this.#drainFailed();
        return false;
      }
    }
    this.#pauseIf(!exchange.bodyEnded && exchange.room <= 0);
    return exchange.bodyEnded;
  }

  /** Drops `count` bytes from the front of the buffer. */
  #take(count: number): void {
    const buffer = this.#buffer!;
    this.#buffer = count >= buffer.length ? undefined : buffer.subarray(count);
  }

  #pauseIf(wait: boolean): void {
    if (wait === this.#paused) return;
    this.#paused = wait;
    if (wait) this.socket.pause();
    else this.socket.resume();
  }

  /** The current exchange is answered: on to the next request, if the connection stays. */
  #next(): void {
    this.#exchange = undefined;
    this.#chunked = undefined;
    if (this.#phase === Phase.Closing) return;
    this.#phase = Phase.Idle;
    this.#since = performance.now();
    this.#pump();
  }

  /** The body was not drained within the limits: the answer goes out, then the connection. */
  #drainFailed(): void {
    const exchange = this.#exchange!;
    const reply = this.#pending;
    this.#pending = undefined;
    if (reply !== undefined) this.#write(exchange, reply, true);
    this.#destroyWhenSent();
  }

  #destroyWhenSent(): void {
    this.#closing();
    this.#pauseIf(true);
    if (this.socket.writableLength === 0) this.socket.destroy();
    else this.socket.once('drain', () => this.socket.destroy());
  }

  /** Answers what was refused before the gateway saw it, and closes the connection. */
  #refuse(code: Parameters<typeof clientErrorAnswer>[0]): void {
    this.#closing();
    this.#buffer = undefined;
    this.#pauseIf(true);
    this.socket.end(clientErrorAnswer(code));
  }

  #write(exchange: Exchange, reply: GatewayReply, close: boolean): void {
    const { body } = reply;
    const length =
      body === null ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
    let head = statusLine(reply.status);
    if (reply.headers === JSON_HEADERS) head += JSON_HEAD_LINES;
    else {
      for (const name in reply.headers) {
        const value = reply.headers[name]!;
        if (UNSAFE_VALUE.test(value) || UNSAFE_VALUE.test(name)) {
          this.#write(exchange, INTERNAL_ERROR, close);
          return;
        }
        head += `${name}: ${value}\r\n`;
      }
    }
    const bodyless = reply.status === 204 || reply.status === 304 || reply.status < 200;
    if (!bodyless) head += `content-length: ${length}\r\n`;
    head += `date: ${httpDate()}\r\n`;
    const keepAlive = this.#owner.keepAliveTimeout;
    head += close
      ? 'connection: close\r\n\r\n'
      : keepAlive > 0
        ? `connection: keep-alive\r\nkeep-alive: timeout=${Math.floor(keepAlive / 1000)}\r\n\r\n`
        : 'connection: keep-alive\r\n\r\n';
    const socket = this.socket;
    if (close) this.#closing();
    if (body === null || bodyless || exchange.method === 'HEAD') socket.write(head, 'latin1');
    else if (typeof body === 'string') socket.write(head + body);
    else {
      socket.cork();
      socket.write(head, 'latin1');
      socket.write(body);
      socket.uncork();
    }
    if (close) socket.end();
  }

  #closing(): void {
    if (this.#phase === Phase.Closing) return;
    this.#phase = Phase.Closing;
    this.#since = performance.now();
  }

  #closed(): void {
    this.#phase = Phase.Closing;
    this.#exchange?.abandon();
    this.#owner.forget(this);
  }
}
