import { describe, expect, it, vi } from 'vitest';
import { CallbackConfigError } from './callback-config-error.ts';
import { type CallbackDeliveryFailure, CallbackDispatcher } from './callback-dispatcher.ts';

const job = { jobId: 'job_1', status: 'completed' };
const URL_WITH_TOKEN = 'https://hooks.example.com:8443/jobs?token=query-secret';

function fetchAnswering(...statuses: number[]) {
  let calls = 0;
  return vi.fn(
    async (_input: RequestInfo | URL, _init?: RequestInit) =>
      new Response(null, { status: statuses[Math.min(calls++, statuses.length - 1)]! }),
  );
}

describe('CallbackDispatcher', () => {
  it('reports a failed delivery once, with the origin only and no credentials', async () => {
    const failures: CallbackDeliveryFailure[] = [];
    const dispatcher = new CallbackDispatcher({
      fetch: fetchAnswering(404),
      onDeliveryFailed: (failure) => failures.push(failure),
    });
    const result = await dispatcher.dispatch({
      url: URL_WITH_TOKEN,
      body: { job },
      webhookId: 'job_1_completed',
      authorization: 'Bearer very-secret',
    });
    expect(result).toEqual({
      delivered: false,
      attempts: 1,
      reason: 'client_error',
      lastStatus: 404,
    });
    expect(failures).toEqual([
      { webhookId: 'job_1_completed', target: 'https://hooks.example.com:8443', result },
    ]);
    expect(JSON.stringify(failures)).not.toMatch(/very-secret|query-secret/);
  });

  it('does not report delivered callbacks and passes shared settings to every delivery', async () => {
    const onDeliveryFailed = vi.fn();
    const fetch = fetchAnswering(200);
    const dispatcher = new CallbackDispatcher({ fetch, onDeliveryFailed });
    await dispatcher.dispatch({ url: 'https://a.example.com/', body: { job }, webhookId: 'a' });
    await dispatcher.dispatch({ url: 'https://b.example.com/', body: { job }, webhookId: 'b' });
    expect(onDeliveryFailed).not.toHaveBeenCalled();
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('reports refused URLs too', async () => {
    const onDeliveryFailed = vi.fn();
    const dispatcher = new CallbackDispatcher({ fetch: fetchAnswering(200), onDeliveryFailed });
    await dispatcher.dispatch({ url: 'http://10.0.0.1/', body: { job }, webhookId: 'x' });
    expect(onDeliveryFailed).toHaveBeenCalledWith(
      expect.objectContaining({ result: expect.objectContaining({ reason: 'refused_url' }) }),
    );
  });

  it('tracks deliveries in flight, hands them to waitUntil, and drains', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fetch = vi.fn(async () => {
      await gate;
      return new Response(null, { status: 200 });
    });
    const waitUntil = vi.fn();
    const dispatcher = new CallbackDispatcher({ fetch, waitUntil });
    const first = dispatcher.dispatch({
      url: 'https://a.example.com/',
      body: { job },
      webhookId: 'a',
    });
    dispatcher.dispatch({ url: 'https://b.example.com/', body: { job }, webhookId: 'b' });
    expect(dispatcher.inFlight).toBe(2);
    expect(waitUntil).toHaveBeenCalledTimes(2);
    expect(waitUntil.mock.calls[0]![0]).toBe(first);

    let drained = false;
    const draining = dispatcher.drain().then(() => {
      drained = true;
    });
    // Both deliveries are held in fetch by the gate: nothing but release() can end them. A turn
    // of the event loop later, drain() still waits.
    await vi.waitFor(() => expect(fetch).toHaveBeenCalledTimes(2));
    await new Promise((resolve) => setImmediate(resolve));
    expect(drained).toBe(false);
    release();
    await draining;
    expect(dispatcher.inFlight).toBe(0);
    expect(await first).toEqual({ delivered: true, attempts: 1, status: 200 });
  });

  it('close() stops pending retries at once and later dispatches end as aborted', async () => {
    let attempts = 0;
    const answer503 = fetchAnswering(503);
    const dispatcher = new CallbackDispatcher({
      fetch: (input, init) => {
        attempts += 1;
        return answer503(input, init);
      },
      baseDelayMs: 60_000,
      random: () => 0.999,
    });
    const pending = dispatcher.dispatch({
      url: 'https://a.example.com/',
      body: { job },
      webhookId: 'a',
    });
    // The first attempt has been made (and its retry is waiting 60 s).
    await expect.poll(() => attempts).toBe(1);
    const started = Date.now();
    await dispatcher.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await pending).toMatchObject({ delivered: false, attempts: 1, reason: 'aborted' });
    expect(
      await dispatcher.dispatch({ url: 'https://a.example.com/', body: { job }, webhookId: 'b' }),
    ).toEqual({ delivered: false, attempts: 0, reason: 'aborted' });
  });

  it('never rejects, even when onDeliveryFailed throws', async () => {
    const dispatcher = new CallbackDispatcher({
      fetch: fetchAnswering(410),
      onDeliveryFailed: () => {
        throw new Error('reporter bug');
      },
    });
    await expect(
      dispatcher.dispatch({ url: 'https://a.example.com/', body: { job }, webhookId: 'a' }),
    ).resolves.toMatchObject({ reason: 'gone' });
  });

  it('validates settings when constructed and bodies when dispatched', () => {
    expect(() => new CallbackDispatcher({ signingSecret: 'whsec_***' })).toThrow(
      CallbackConfigError,
    );
    expect(() => new CallbackDispatcher({ maxAttempts: 0 })).toThrow(CallbackConfigError);
    const dispatcher = new CallbackDispatcher({ fetch: fetchAnswering(200) });
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() =>
      dispatcher.dispatch({ url: 'https://a.example.com/', body: circular, webhookId: 'a' }),
    ).toThrow(CallbackConfigError);
    expect(dispatcher.inFlight).toBe(0);
  });
});
