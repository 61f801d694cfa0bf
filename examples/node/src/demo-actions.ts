import { defineAction, reject } from '@svc/gateway-kit';
import * as v from 'valibot';

// A tiny in-memory back office, so the demo answers realistic data without any service.
const ACCOUNTS: Record<string, { name: string; plan: string; status: 'active' | 'suspended' }> = {
  acc_1001: { name: 'Globex GmbH', plan: 'enterprise', status: 'active' },
  acc_1002: { name: 'Initech Ltd', plan: 'team', status: 'active' },
  acc_1003: { name: 'Umbrella plc', plan: 'team', status: 'suspended' },
};

/** Sync, read-only: what the assistant calls when someone asks about a customer. */
export const lookupAccount = defineAction({
  id: 'lookup-account',
  title: 'Look up an account',
  description: 'Finds a customer account by its id (e.g. acc_1001) and reports plan and status.',
  input: v.strictObject({
    accountId: v.pipe(v.string(), v.regex(/^acc_\d+$/, 'Expected an account id like acc_1001')),
  }),
  sideEffectLevel: 'read',
  idempotent: true,
  run: ({ accountId }) => {
    const account = ACCOUNTS[accountId];
    if (!account) {
      return reject({ code: 'account_not_found', message: `No account ${accountId}.` });
    }
    return {
      outputText: `${account.name} is on the ${account.plan} plan and is ${account.status}.`,
      machineSummary: `account=${accountId} plan=${account.plan} status=${account.status}`,
      dataSchemaVersion: '1',
      data: { accountId, ...account },
    };
  },
});

/** Every action the demo gateway offers. */
export const demoActions = [lookupAccount];
