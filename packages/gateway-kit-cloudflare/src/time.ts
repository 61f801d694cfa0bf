/** Positive integer check of a store option, with the option's name in the message. */
export function positiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be a positive integer, got ${value}.`);
  }
  return value;
}

/** A table name prefix: letters, digits and `_` only (it is spliced into SQL). */
export function tablePrefix(prefix: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(prefix)) {
    throw new RangeError(
      `prefix must start with a letter or _ and hold only letters, digits and _, got ${JSON.stringify(prefix)}.`,
    );
  }
  return prefix;
}

/** Bytes of a string as UTF-8. */
export function utf8Bytes(text: string): number {
  return new TextEncoder().encode(text).byteLength;
}
