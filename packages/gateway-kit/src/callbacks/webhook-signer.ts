/** Signs callbacks the Standard Webhooks way (`webhook-signature: v1,<base64>`). */
export interface WebhookSigner {
  /** `v1,` and the base64 HMAC-SHA256 of `<webhookId>.<timestampSeconds>.<payload>`. */
  sign(webhookId: string, timestampSeconds: number, payload: string): Promise<string>;
}

const PREFIX = 'whsec_';
// Standard base64, its padding optional: what Standard Webhooks secrets are. A length no base64
// has, or anything else (spaces, a newline read from a file), is refused rather than decoded to a
// key a receiver may decode differently.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;
const encoder: TextEncoder = /* @__PURE__ */ new TextEncoder();

// Imported keys by secret: a gateway signs with one secret, so each is imported once. Bounded, so
// code cycling through secrets (deliverCallback takes one per call) cannot grow it.
const MAX_KEYS = 16;
const keys: Map<string, Promise<CryptoKey>> = /* @__PURE__ */ new Map();

/**
 * A signer for a Standard Webhooks secret (`whsec_` and base64 of the key; the prefix may be
 * left out), or `undefined` when the secret is not one. HMAC-SHA256 with Web Crypto.
 *
 * @example
 * const signer = webhookSigner(process.env.CALLBACK_SECRET!);
 * await signer?.sign('msg_1', Math.floor(Date.now() / 1000), '{"status":"completed"}'); // 'v1,…'
 */
export function webhookSigner(secret: string): WebhookSigner | undefined {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  if (encoded === '' || !BASE64.test(encoded)) return undefined;
  return {
    async sign(webhookId, timestampSeconds, payload) {
      const mac = await crypto.subtle.sign(
        'HMAC',
        await keyOf(encoded),
        encoder.encode(`${webhookId}.${timestampSeconds}.${payload}`),
      );
      let binary = '';
      for (const byte of new Uint8Array(mac)) binary += String.fromCharCode(byte);
      return `v1,${btoa(binary)}`;
    },
  };
}

function keyOf(encoded: string): Promise<CryptoKey> {
  let key = keys.get(encoded);
  if (key === undefined) {
    const raw = Uint8Array.from(atob(encoded), (char) => char.charCodeAt(0));
    key = crypto.subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
    keys.set(encoded, key);
    key.catch(() => keys.delete(encoded));
  }
  return key;
}
