import { after } from 'next/server';
import { asAddressed, demoGateway } from '../../../lib/gateway.ts';

// Every request under /gateway is the gateway's, /gateway itself included (the optional catch-all
// [[...path]]: with [...path] Next answers /gateway with its own HTML 404 page), answered per
// request on the Node.js runtime.
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

function handle(request: Request): Promise<Response> {
  // after() keeps the work an invoke starts (an async job, its callback) alive past the response
  // on hosts that freeze a function once it has answered; under `next start` the process stays up
  // anyway.
  return demoGateway().fetch(asAddressed(request), undefined, {
    waitUntil: (work) => after(work),
  });
}

// All methods go to the gateway, so it answers the contract's 404/405 envelopes itself.
export {
  handle as DELETE,
  handle as GET,
  handle as HEAD,
  handle as OPTIONS,
  handle as PATCH,
  handle as POST,
  handle as PUT,
};
