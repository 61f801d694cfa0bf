// The one class this package takes from the Workers runtime. Declared here (structurally) so the
// package's own build needs no `@cloudflare/workers-types`; in a Worker the runtime provides it.
declare module 'cloudflare:workers' {
  export abstract class DurableObject<Env = unknown> {
    protected ctx: import('./gateway-object.ts').DurableObjectStateLike;
    protected env: Env;
    constructor(ctx: import('./gateway-object.ts').DurableObjectStateLike, env: Env);
  }
}
