import { WorkspaceValidationError } from '../errors/validation-error.ts';

/**
 * Validates a path key (`slug`, `externalId`) and percent-encodes it as one path segment.
 * `.` and `..` are refused: URL parsers resolve them (even percent-encoded) as dot-segments,
 * so such a key could never address its own resource.
 */
export function encodePathKey(value: unknown, name: string): string {
  let problem: string | undefined;
  if (typeof value !== 'string') problem = 'Expected a string';
  else if (value.trim() === '') problem = 'Must not be empty';
  else if (value === '.' || value === '..') problem = 'Must not be "." or ".."';
  if (problem !== undefined) {
    throw new WorkspaceValidationError('request', name, [{ path: name, message: problem }]);
  }
  return encodeURIComponent(value as string);
}
