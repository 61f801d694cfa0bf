/**
 * Anything shaped like an action definition whose `input` is a Standard Schema (a valibot or zod
 * schema): `@svc/gateway-kit`'s `defineAction(...)` results fit, without this package depending
 * on the kit.
 *
 * @example
 * const answer = await client.invoke(lookupAccount, { accountId: 'acc_1001' });
 */
export interface TypedActionLike {
  readonly id: string;
  readonly input: {
    readonly '~standard': { readonly types?: { readonly input: unknown } | undefined };
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
