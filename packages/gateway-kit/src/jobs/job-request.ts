import type { Invocation } from '../actions/define-action.ts';

/** What a job's run needs from the caller's request: the action input and the invocation. */
export interface JobRequest {
  readonly input: Record<string, unknown>;
  readonly invocation: Invocation;
}

/**
 * Encodes what a job keeps of the caller's request as text (`StoredJob.request`): the input and
 * the invocation without its `context`, a newline, then the `context`. JSON text never holds a raw
 * newline, so the first one splits the two. Kept as text, a job holds about the request's size in
 * bytes, where parsed objects of a hostile shape (thousands of empty objects) hold 20–60× it.
 *
 * @example
 * const text = encodeJobRequest({ input: { topic: 'Q3' }, invocation });
 */
export function encodeJobRequest(request: JobRequest): string {
  const { context, ...invocation } = request.invocation;
  return `${JSON.stringify({ input: request.input, invocation })}\n${JSON.stringify(context)}`;
}

/**
 * Decodes {@link encodeJobRequest}'s text. The `context` stays text until something reads
 * `invocation.context`: a job whose action never looks at it never parses it.
 *
 * @example
 * const { input, invocation } = decodeJobRequest(job.request);
 */
export function decodeJobRequest(text: string): JobRequest {
  const cut = text.indexOf('\n');
  const head = JSON.parse(cut === -1 ? text : text.slice(0, cut)) as {
    input: Record<string, unknown>;
    invocation: Omit<Invocation, 'context'>;
  };
  let contextText: string | undefined = cut === -1 ? '{}' : text.slice(cut + 1);
  let context: Record<string, unknown> | undefined;
  const invocation = { ...head.invocation } as Invocation;
  Object.defineProperty(invocation, 'context', {
    enumerable: true,
    get: () => {
      if (context === undefined) {
        context = JSON.parse(contextText ?? '{}') as Record<string, unknown>;
        contextText = undefined;
      }
      return context;
    },
  });
  return { input: head.input, invocation };
}
