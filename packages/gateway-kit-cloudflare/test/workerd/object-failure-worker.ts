// createGatewayWorker whose Durable Object calls fail the ways Cloudflare documents: the platform's
// errors carry `retryable` (the object was reset or moved, its connection lost) or `overloaded`;
// an error of the object's own code carries `remote`. workerd gives the last for real (an object
// that aborts itself); the platform's two cannot be provoked locally, so the stub throws errors of
// their documented shape. The request's `x-fail` header picks the failure.
import { DurableObject } from 'cloudflare:workers';
import { defineAction } from '@svc/gateway-kit';
import * as v from 'valibot';
import { createGatewayWorker, type GatewayNamespace } from '../../src/index.ts';

interface Env {
  readonly GATEWAY: GatewayNamespace;
  readonly ABORTING: GatewayNamespace;
}

/** An object whose every request resets it: its caller gets the runtime's `remote` error. */
export class AbortingObject extends DurableObject {
  fetch(): Response {
    // `abort` is workerd's; the package's own declaration of the state leaves it out.
    (this.ctx as unknown as { abort(reason: string): void }).abort('reset by the test');
    return new Response('never sent');
  }
}

/** Cloudflare's infrastructure error, as its error-handling page describes it. */
function platformError(flag: 'retryable' | 'overloaded'): Error {
  return Object.assign(new Error(`Durable Object failed (${flag}).`), { [flag]: true });
}

const echo = defineAction({
  id: 'echo',
  description: 'Answers with its input.',
  input: v.strictObject({ text: v.string() }),
  run: ({ text }) => ({ outputText: text }),
});

const worker = createGatewayWorker<Env>({
  gateway: () => ({
    gateway: { id: 'object-failure', name: 'Object failure' },
    actions: [echo],
    auth: { tokens: ['failure-token'] },
  }),
  namespace: (env) => ({
    idFromName: (name) => env.GATEWAY.idFromName(name),
    get: (id) => {
      const object = env.GATEWAY.get(id);
      return {
        fetch: (request: Request) => {
          const fail = request.headers.get('x-fail');
          if (fail === 'retryable' || fail === 'overloaded') throw platformError(fail);
          if (fail === 'remote')
            return env.ABORTING.get(env.ABORTING.idFromName('aborting')).fetch(request);
          return object.fetch(request);
        },
      } as ReturnType<GatewayNamespace['get']>;
    },
  }),
});

export const GatewayObject = worker.GatewayObject;
export default { fetch: worker.fetch };
