/**
 * Anything shaped like an action definition whose `input` is a Standard Schema (a valibot or zod
 * schema): `@svc/gateway-kit`'s `defineAction(...)` results fit, without this package depending
 * on the kit.
 *
 * @example
 * const answer = await client.invoke(lookupAccount, { accountId: 'acc_1001' });
 */
export interface TypedActionLike {
  /** The action's id, sent as `action.id`. */
  readonly id: string;
  /** The action's input schema; only its Standard Schema types are read, for {@link ActionInput}. */
  readonly input: {
    /** The Standard Schema interface of the schema. */
    readonly '~standard': {
      /** The inferred types: a type-level field, absent at run time. */
      readonly types?:
        | {
            /** What the schema accepts. */
            readonly input: unknown;
          }
        | undefined;
    };
  };
}

/**
 * The input type of an action definition (what its schema accepts), or a free-form object for an
 * action named by id.
 *
 * @example
 * type LookupInput = ActionInput<typeof lookupAccount>; // { accountId: string }
 */
export type ActionInput<TAction> = TAction extends TypedActionLike
  ? NonNullable<TAction['input']['~standard']['types']>['input']
  : Record<string, unknown>;
