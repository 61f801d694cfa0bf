/**
 * The id of a contract rule, e.g. `'auth-bearer'`.
 *
 * @example
 * const rule: RuleId = 'invoke-request-strict';
 */
export type RuleId =
  | 'manifest-shape'
  | 'manifest-action-ids-unique'
  | 'manifest-input-schema'
  | 'auth-bearer'
  | 'error-envelope'
  | 'json-content-type'
  | 'invoke-request-strict'
  | 'invoke-request-required'
  | 'invoke-one-action'
  | 'invoke-input-invalid'
  | 'invoke-response-shape'
  | 'job-resource'
  | 'job-cancel'
  | 'job-unknown'
  | 'approval-required-shape'
  | 'callback-authorization';

/**
 * What a rule says, and where the contract says it.
 *
 * @example
 * const { summary, contract }: RuleInfo = RULES['error-envelope'];
 */
export interface RuleInfo {
  /** What the rule requires, in one sentence. */
  readonly summary: string;
  /** Where Gateway Contract v1 says it (sections, `;`-separated). */
  readonly contract: string;
}

/** Freezes `table` and each of its entries: one level of nesting, what {@link RULES} has. */
const freezeTable = <T extends Record<string, object>>(table: T): Readonly<T> => {
  for (const entry of Object.values(table)) Object.freeze(entry);
  return Object.freeze(table);
};

/**
 * The rules of Gateway Contract v1 the checker enforces. Every check names exactly one rule, so a
 * failing report says which promise of the contract a gateway broke. Frozen, entries included:
 * the checker's own messages read it, so a change by one caller would reach every report (in
 * strict mode an assignment throws a `TypeError`).
 *
 * @example
 * console.log(RULES['auth-bearer'].contract); // 'Authentication 1; Endpoints A'
 */
export const RULES: Readonly<Record<RuleId, RuleInfo>> = /* @__PURE__ */ freezeTable({
  'manifest-shape': {
    summary: 'GET /v1/manifest answers 200 with every field of the manifest table, typed as listed',
    contract: 'Manifest',
  },
  'manifest-action-ids-unique': {
    summary: 'action ids in the manifest are unique',
    contract: 'Manifest; Endpoints A rule 1',
  },
  'manifest-input-schema': {
    summary: 'every actions[].inputSchema is a JSON Schema with an object root',
    contract: 'Manifest (actions[].inputSchema)',
  },
  'auth-bearer': {
    summary: 'every route answers 401 to a missing, wrong, empty or non-Bearer credential',
    contract: 'Authentication 1; Errors 3',
  },
  'error-envelope': {
    summary:
      'every error answer is the error envelope: { error: { code, message, retryable, details? } }',
    contract: 'Errors 1; Gateway error',
  },
  'json-content-type': {
    summary:
      'every answer with a JSON body (manifest, invoke outcomes, jobs, error envelopes) has Content-Type application/json',
    contract: 'Endpoints A; Errors 1 (the media type: docs/decisions.md)',
  },
  'invoke-request-strict': {
    summary:
      'unknown properties at the top level and in meeting, session, action, callbacks get 422',
    contract: 'Invoke request; Endpoints A rule 2',
  },
  'invoke-request-required': {
    summary: 'an invoke without a required field, or with a wrong type, gets 422',
    contract: 'Invoke request; Endpoints A rule 2',
  },
  'invoke-one-action': {
    summary: 'an invoke naming no action, or two different actions, gets 422',
    contract: 'Endpoints A rule 1',
  },
  'invoke-input-invalid': {
    summary: "an action input that fails the action's inputSchema gets 422",
    contract: 'Endpoints A rule 2; Errors 3',
  },
  'invoke-response-shape': {
    summary: 'a valid invoke answers 200 with exactly one of the four outcome shapes',
    contract: 'Invoke response',
  },
  'job-resource': {
    summary: 'GET /v1/jobs/{jobId} answers the job resource with a contract status value',
    contract: 'Job resource; Endpoints A rule 3',
  },
  'job-cancel': {
    summary: 'POST /v1/jobs/{jobId}/cancel of a queued or running job answers 200 { job }',
    contract: 'Endpoints A rule 4',
  },
  'job-unknown': {
    summary: 'GET or cancel of a job the gateway never issued is an error answer',
    contract: 'Endpoints A rules 3 and 5',
  },
  'approval-required-shape': {
    summary: 'an action requiring approval answers approval_required with approvalId and reason',
    contract: 'Invoke response; Approval',
  },
  'callback-authorization': {
    summary: 'job-result and approval callbacks arrive with callbacks.authorization verbatim',
    contract: 'Authentication 2; Events 1',
  },
});
