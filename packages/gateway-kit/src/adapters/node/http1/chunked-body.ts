// A `Transfer-Encoding: chunked` body (RFC 9112 §7.1), decoded as its bytes arrive: sizes in hex,
// extensions and trailer fields read and dropped, within the same limits as Node's own parser.

import type { HeadRefusal } from './request-head.ts';

/** Bytes of chunk extensions one body may carry, all chunks together (as Node). */
export const MAX_CHUNK_EXTENSION_BYTES: number = 16 * 1024;
/** Bytes of trailer fields one body may carry (as a head). */
export const MAX_TRAILER_BYTES: number = 16 * 1024;

/** Why a chunked body was refused: the catalogue code of the answer, and what was wrong. */
export interface ChunkRefusal {
  readonly code: 'malformed_request' | 'payload_too_large' | 'headers_too_large';
  readonly reason: string;
}

enum State {
  Size,
  /** In a chunk extension's name, after its `;`. */
  ExtensionName,
  /** After an extension's `=`: a token or a quoted string must follow. */
  ExtensionValue,
  ExtensionToken,
  ExtensionQuoted,
  /** After a backslash in a quoted string. */
  ExtensionEscape,
  /** After a quoted string's closing quote: `;` or CR. */
  ExtensionEnd,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  /** At the start of a trailer line, or in its name. */
  TrailerName,
  TrailerValue,
  TrailerLf,
  Done,
}

// Hex digits of a chunk size at most: 2^48 bytes, well inside a safe integer.
const MAX_SIZE_DIGITS = 12;

function hexValue(byte: number): number {
  if (byte >= 48 && byte <= 57) return byte - 48;
  const lower = byte | 0x20;
  return lower >= 97 && lower <= 102 ? lower - 87 : -1;
}

// tchar (RFC 9110 §5.6.2) other than letters and digits.
const TOKEN_PUNCTUATION = [33, 35, 36, 37, 38, 39, 42, 43, 45, 46, 94, 95, 96, 124, 126];

function isTokenByte(byte: number): boolean {
  const lower = byte | 0x20;
  return (
    (byte >= 48 && byte <= 57) || (lower >= 97 && lower <= 122) || TOKEN_PUNCTUATION.includes(byte)
  );
}

const isControl = (byte: number): boolean => (byte < 32 && byte !== 9) || byte === 127;

const refused = (reason: string): ChunkRefusal => ({ code: 'malformed_request', reason });
const EXTENSIONS_TOO_LARGE: ChunkRefusal = {
  code: 'payload_too_large',
  reason: 'chunk extensions over 16 KiB',
};

/**
 * Decodes one chunked body. Stricter than RFC 9112 where Node's parser is: no space between a size
 * and its extensions, extensions only as `;name` or `;name=value` (a token or a quoted string),
 * and trailer lines only as `name: value`, never `Content-Length` or `Transfer-Encoding`.
 *
 * {@link ChunkedBody.decode} takes what has arrived, hands each run of body bytes to `onData` (a
 * view into the buffer, valid until the buffer is reused) and says how far it read;
 * {@link ChunkedBody.done} turns true after the last chunk and the trailer section.
 *
 * @example
 * const body = new ChunkedBody();
 * const read = body.decode(buffer, bodyStart, (bytes) => store.add(bytes));
 * if (typeof read !== 'number') refuse(read.code);
 */
export class ChunkedBody {
  #state = State.Size;
  #size = 0;
  #digits = 0;
  #extensionBytes = 0;
  #trailerBytes = 0;
  #lineBytes = 0;
  /** Bytes of the extension name being read. */
  #nameBytes = 0;
  /** The trailer field name being read. */
  #trailerName = '';

  get done(): boolean {
    return this.#state === State.Done;
  }

  /** Reads from `from` on; returns the offset after what it consumed, or why it refuses. */
  decode(
    buffer: Buffer,
    from: number,
    onData: (bytes: Buffer) => void,
  ): number | ChunkRefusal | HeadRefusal {
    let at = from;
    const end = buffer.length;
    while (at < end) {
      const byte = buffer[at]!;
      switch (this.#state) {
        case State.Size: {
          const digit = hexValue(byte);
          if (digit !== -1) {
            if (++this.#digits > MAX_SIZE_DIGITS) return refused('chunk size too long');
            this.#size = this.#size * 16 + digit;
            at++;
          } else if (this.#digits === 0) {
            return refused('chunk size missing');
          } else if (byte === 13) {
            this.#state = State.SizeLf;
            at++;
          } else if (byte === 59) {
            // No space before the `;`: Node refuses it, so a proxy may read it otherwise.
            this.#state = State.ExtensionName;
            this.#nameBytes = 0;
            if (++this.#extensionBytes > MAX_CHUNK_EXTENSION_BYTES) return EXTENSIONS_TOO_LARGE;
            at++;
          } else return refused('chunk size is not hex');
          break;
        }
        case State.ExtensionName:
        case State.ExtensionValue:
        case State.ExtensionToken:
        case State.ExtensionQuoted:
        case State.ExtensionEscape:
        case State.ExtensionEnd: {
          const wrong = this.#extensionByte(byte);
          if (wrong !== undefined) return wrong;
          at++;
          break;
        }
        case State.SizeLf: {
          if (byte !== 10) return refused('chunk size line without CR LF');
          at++;
          this.#digits = 0;
          this.#state = this.#size === 0 ? State.TrailerName : State.Data;
          break;
        }
        case State.Data: {
          const take = Math.min(this.#size, end - at);
          onData(buffer.subarray(at, at + take));
          at += take;
          this.#size -= take;
          if (this.#size === 0) this.#state = State.DataCr;
          break;
        }
        case State.DataCr:
        case State.TrailerLf:
        case State.DataLf: {
          const expected = this.#state === State.DataCr ? 13 : 10;
          if (byte !== expected) return refused('chunk data without CR LF after it');
          at++;
          if (this.#state === State.DataCr) this.#state = State.DataLf;
          else if (this.#state === State.DataLf) this.#state = State.Size;
          else if (this.#lineBytes === 0) {
            this.#state = State.Done;
            return at;
          } else {
            this.#lineBytes = 0;
            this.#trailerName = '';
            this.#state = State.TrailerName;
          }
          break;
        }
        case State.TrailerName:
        case State.TrailerValue: {
          // Trailer fields are read and dropped: well-formed, bounded, and free of control bytes.
          if (byte === 13) {
            if (this.#state === State.TrailerName && this.#lineBytes > 0)
              return refused('a trailer line without a colon');
            this.#state = State.TrailerLf;
            at++;
            break;
          }
          if (this.#state === State.TrailerValue) {
            if (isControl(byte)) return refused('a control byte in a trailer field');
          } else if (byte === 58 && this.#lineBytes > 0) {
            // Framing fields have no place in trailers (RFC 9110 §6.5.1), and Node refuses them.
            const name = this.#trailerName.toLowerCase();
            if (name === 'content-length' || name === 'transfer-encoding')
              return refused('a framing field in the trailers');
            this.#state = State.TrailerValue;
          } else if (isTokenByte(byte)) {
            this.#trailerName += String.fromCharCode(byte);
          } else return refused('a trailer field name that is not a token');
          this.#lineBytes++;
          if (++this.#trailerBytes > MAX_TRAILER_BYTES)
            return { code: 'headers_too_large', reason: 'trailer fields over 16 KiB' };
          at++;
          break;
        }
        case State.Done:
          return at;
      }
    }
    return at;
  }

  /** Reads one byte of the chunk extensions: `*( ";" token [ "=" ( token / quoted-string ) ] )`. */
  #extensionByte(byte: number): ChunkRefusal | undefined {
    const state = this.#state;
    if (byte === 13) {
      const whole =
        (state === State.ExtensionName && this.#nameBytes > 0) ||
        state === State.ExtensionToken ||
        state === State.ExtensionEnd;
      if (!whole) return refused('a chunk extension cut short');
      this.#state = State.SizeLf;
      return undefined;
    }
    if (isControl(byte)) return refused('a control byte in a chunk extension');
    if (++this.#extensionBytes > MAX_CHUNK_EXTENSION_BYTES) return EXTENSIONS_TOO_LARGE;
    switch (state) {
      case State.ExtensionName:
        if (isTokenByte(byte)) {
          this.#nameBytes++;
          return undefined;
        }
        if (this.#nameBytes > 0 && byte === 59) {
          this.#nameBytes = 0;
          return undefined;
        }
        if (this.#nameBytes > 0 && byte === 61) {
          this.#state = State.ExtensionValue;
          return undefined;
        }
        break;
      case State.ExtensionValue:
        if (isTokenByte(byte)) {
          this.#state = State.ExtensionToken;
          return undefined;
        }
        if (byte === 34) {
          this.#state = State.ExtensionQuoted;
          return undefined;
        }
        break;
      case State.ExtensionToken:
        if (isTokenByte(byte)) return undefined;
        if (byte === 59) {
          this.#state = State.ExtensionName;
          this.#nameBytes = 0;
          return undefined;
        }
        break;
      case State.ExtensionQuoted:
        // Tab, space, visible ASCII and obs-text; a quote ends it, a backslash escapes a byte.
        if (byte === 34) this.#state = State.ExtensionEnd;
        else if (byte === 92) this.#state = State.ExtensionEscape;
        return undefined;
      case State.ExtensionEscape:
        this.#state = State.ExtensionQuoted;
        return undefined;
      case State.ExtensionEnd:
        if (byte === 59) {
          this.#state = State.ExtensionName;
          this.#nameBytes = 0;
          return undefined;
        }
        break;
    }
    return refused('a chunk extension that is not ;name or ;name=value');
  }
}
