// One request on a connection of `serve()`'s server, seen by the gateway as a GatewayCall.

import type { BodyReadResult, GatewayCall } from '../../../http/gateway-call.ts';
import { pathOf, queryOf } from '../../../http/request-target.ts';
import { requestBaseOf } from '../to-node-handler.ts';
import type { RequestHead } from './request-head.ts';

const EMPTY: Buffer = Buffer.alloc(0);

/** The body bytes that arrived, kept as the one view into the socket's chunk when they fit one. */
class BodyBytes {
  #first: Buffer | undefined;
  #store: Buffer | undefined;
  length = 0;

  add(bytes: Buffer): void {
    if (bytes.length === 0) return;
    if (this.#first === undefined && this.#store === undefined) {
      this.#first = bytes;
      this.length = bytes.length;
      return;
    }
    // More than one piece: copied once into a store that doubles as it fills (a body trickled a
    // byte at a time costs its bytes, not an object per byte).
    const needed = this.length + bytes.length;
    if (this.#store === undefined || this.#store.length < needed) {
      const store = Buffer.allocUnsafe(Math.max(needed, 2 * (this.#store?.length ?? 8 * 1024)));
      if (this.#store !== undefined) this.#store.copy(store, 0, 0, this.length);
      else if (this.#first !== undefined) this.#first.copy(store);
      this.#store = store;
      this.#first = undefined;
    }
    bytes.copy(this.#store, this.length);
    this.length = needed;
  }

  bytes(): Buffer {
    if (this.#store !== undefined) return this.#store.subarray(0, this.length);
    return this.#first ?? EMPTY;
  }
}

/** What an exchange needs of its connection. */
export interface ExchangeHost {
  readonly trustProxy: boolean;
  readonly wantsQuery: boolean;
  /** The body is wanted again (a reader asked, or its limit rose): read on. */
  resume(): void;
}

/** Bytes of body kept before the gateway asks for it (beyond them, reading waits). */
export const HELD_BODY_BYTES: number = 64 * 1024;

/**
 * A request of `serve()`'s server as a {@link GatewayCall}: its head, and its body as it arrives.
 * A class with methods, so that no request carries closures of its own.
 */
export class Exchange implements GatewayCall {
  readonly method: string;
  readonly path: string;
  readonly query: string | undefined;
  readonly head: RequestHead;
  readonly #host: ExchangeHost;
  readonly #body = new BodyBytes();
  #bodyEnded = false;
  /** Body bytes allowed before reading waits: what a reader asked for, or {@link HELD_BODY_BYTES}. */
  #allowed = HELD_BODY_BYTES;
  #reader: ((result: BodyReadResult) => void) | undefined;
  #readLimit = 0;
  #controller: AbortController | undefined;
  /** The answer has been handed over (it may wait for the body to be drained). */
  answered = false;
  /** Body bytes dropped: the answer came first, or the body went over the reader's limit. */
  discarded = 0;
  discarding = false;

  constructor(head: RequestHead, host: ExchangeHost) {
    this.head = head;
    this.#host = host;
    this.method = head.method;
    this.path = pathOf(head.target);
    this.query = host.wantsQuery ? queryOf(head.target) : undefined;
    if (!head.chunked && head.contentLength === 0) this.#bodyEnded = true;
  }

  get bodyEnded(): boolean {
    return this.#bodyEnded;
  }

  /** Body bytes the connection may still hand over now (reading waits at 0). */
  get room(): number {
    return this.discarding ? Number.POSITIVE_INFINITY : this.#allowed - this.#body.length;
  }

  /** Body bytes as they arrive. */
  receive(bytes: Buffer): void {
    if (this.discarding) {
      this.discarded += bytes.length;
      return;
    }
    this.#body.add(bytes);
    if (this.#reader !== undefined && this.#body.length > this.#readLimit) this.#tooLarge();
  }

  /** The body has ended. */
  end(): void {
    this.#bodyEnded = true;
    this.#settle();
  }

  /** The connection closed before the body ended: the reader gets what arrived. */
  abandon(): void {
    if (!this.#bodyEnded) {
      this.#bodyEnded = true;
      this.#settle();
    }
    if (!this.answered)
      this.#controller?.abort(new DOMException('The client disconnected.', 'AbortError'));
  }

  /** From now on the body is read only to be dropped. */
  discard(): void {
    if (this.discarding) return;
    this.discarding = true;
    this.discarded = this.#body.length;
  }

  header(name: string): string | undefined {
    const { names, values } = this.head;
    let joined: string | undefined;
    for (let i = 0; i < names.length; i++) {
      if (names[i] === name) joined = joined === undefined ? values[i] : `${joined}, ${values[i]}`;
    }
    return joined;
  }

  readBody(limit: number): Promise<BodyReadResult> {
    if (this.#reader !== undefined || this.discarding)
      return Promise.resolve({ kind: 'too_large' });
    if (this.head.contentLength > limit || this.#body.length > limit) {
      this.discard();
      this.#host.resume();
      return Promise.resolve({ kind: 'too_large' });
    }
    if (this.#bodyEnded) return Promise.resolve({ kind: 'bytes', bytes: this.#body.bytes() });
    return new Promise((resolve) => {
      this.#reader = resolve;
      this.#readLimit = limit;
      // One byte past the limit is read, to tell a body of exactly `limit` from a longer one.
      this.#allowed = limit + 1;
      this.#host.resume();
    });
  }

  /** Made on first use: only a running action needs to learn of a disconnect. */
  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    return this.#controller.signal;
  }

  get requestBase(): string {
    return requestBaseOf(this.#host.trustProxy, (name) => this.header(name), false, '');
  }

  #tooLarge(): void {
    const reader = this.#reader!;
    this.#reader = undefined;
    this.discard();
    reader({ kind: 'too_large' });
  }

  #settle(): void {
    const reader = this.#reader;
    if (reader === undefined) return;
    this.#reader = undefined;
    reader({ kind: 'bytes', bytes: this.#body.bytes() });
  }
}
