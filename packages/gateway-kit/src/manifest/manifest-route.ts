import type { Manifest } from '../contract/manifest.ts';
import type { GatewayCall, GatewayReply } from '../http/gateway-call.ts';

interface ServedManifest {
  readonly body: string;
  readonly etag: string;
}

/** A strong ETag from the document's bytes (FNV-1a; change detection, not security). */
function etagOf(body: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < body.length; i++) {
    hash ^= body.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return `"${body.length.toString(16)}-${(hash >>> 0).toString(16)}"`;
}

function serve(manifest: Manifest): ServedManifest {
  const body = JSON.stringify(manifest);
  return { body, etag: etagOf(body) };
}

function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag || trimmed === `W/${etag}`;
  });
}

// Without a configured URL, one document per base URL is cached; a flood of forged Host headers
// stops being cached past this many, so memory stays bounded.
const MAX_CACHED_ORIGINS = 16;

/**
 * The `GET /v1/manifest` handler: serves bytes computed once, with an ETag and `304 Not Modified`
 * for a matching `If-None-Match`. `derivedBasePath` is set when the gateway has no configured URL:
 * the URL is then the request's origin plus the base path.
 */
export function createManifestRoute(
  manifest: Manifest,
  derivedBasePath: string | undefined,
): (call: GatewayCall) => GatewayReply {
  const fixed = derivedBasePath === undefined ? serve(manifest) : undefined;
  const byOrigin = new Map<string, ServedManifest>();

  const documentFor = (origin: string): ServedManifest => {
    if (fixed) return fixed;
    const cached = byOrigin.get(origin);
    if (cached) return cached;
    const url = `${origin}${derivedBasePath}`;
    const served = serve({ ...manifest, gateway: { ...manifest.gateway, url } });
    if (byOrigin.size < MAX_CACHED_ORIGINS) byOrigin.set(origin, served);
    return served;
  };

  return (call) => {
    const served = documentFor(call.requestBase);
    const headers = {
      'content-type': 'application/json',
      'cache-control': 'private, no-cache',
      etag: served.etag,
    };
    if (matches(call.header('if-none-match'), served.etag)) {
      return { status: 304, headers, body: null };
    }
    return { status: 200, headers, body: served.body };
  };
}
