import { createHash } from 'node:crypto';
import {
  GatewayConfigError,
  type Refuse,
  refusalFor,
  StoreUnavailableError,
  timerMs,
} from '@svc/gateway-kit/store';
import {
  createClient,
  createCluster,
  ErrorReply,
  RedisClient as NodeRedisClient,
  type RedisClientOptions,
  type RedisClusterOptions,
} from 'redis';
import { slotOf } from './key-layout.ts';

/** The node-redis client type these stores use (`createClient()` from `redis`). */
export type RedisClient = ReturnType<typeof createClient>;

/** The node-redis Redis Cluster client type (`createCluster()` from `redis`). */
export type RedisClusterClient = ReturnType<typeof createCluster>;

/**
 * How a Redis store connects. Give `url` (or `clientOptions`) for one Redis node, or `cluster`
 * (seed nodes) for a Redis Cluster, and the store opens and owns its connections; or give a
 * connected `client` you own (a `createClient()` or a `createCluster()`, e.g. shared by the job
 * and record store), and the store leaves it open on `close()`.
 *
 * @example
 * const single: RedisConnectionOptions = { url: 'redis://127.0.0.1:6379', commandTimeoutMs: 2_000 };
 * const cluster: RedisConnectionOptions = {
 *   cluster: { rootNodes: [{ url: 'redis://10.0.0.1:6379' }, { url: 'redis://10.0.0.2:6379' }] },
 * };
 */
export interface RedisConnectionOptions {
  /**
   * `redis[s]://[[user][:password]@]host[:port][/db]`. Default `redis://127.0.0.1:6379`, unless
   * `clientOptions.socket` says where to connect (`host`, `port` or `path`).
   */
  readonly url?: string;
  /**
   * Extra `createClient` options (TLS, credentials, …). The store sets `disableOfflineQueue` and
   * a reconnect strategy unless you set them here; every command gets the store's own deadline
   * (`commandTimeoutMs`).
   */
  readonly clientOptions?: RedisClientOptions;
  /**
   * A Redis Cluster to use instead of one node: `createCluster` options, at least `rootNodes`
   * (seed nodes; give several). Settings for every node connection (credentials, TLS) go in
   * `defaults`. The store sets `disableOfflineQueue`, a reconnect strategy and a prompt topology
   * refresh after a failover unless you set them here. Not with `url` or `client`.
   */
  readonly cluster?: RedisClusterOptions;
  /**
   * A client you created and own: `createClient()` or `createCluster()`. The store never closes
   * it; it must not queue commands forever (`disableOfflineQueue`).
   */
  readonly client?: RedisClient | RedisClusterClient;
  /**
   * How long one store call may take before it fails with {@link StoreUnavailableError}, in ms,
   * whatever Redis does (down, paused, partitioned): the store enforces it itself, and a
   * connection that missed it is dropped and re-established. Default 2000.
   */
  readonly commandTimeoutMs?: number;
  /** How long the first command waits for the initial connection, in ms. Default 2000. */
  readonly connectTimeoutMs?: number;
  /**
   * Receives connection problems (lost, restored, failed background work), each state change
   * once, not on every reconnect attempt; background work that fails during a known outage is not
   * reported again. Default: one `console.warn` line (no stack) when the connection is lost or
   * misses a deadline, one `console.info` line when it is back, `console.error` for anything else.
   */
  readonly onError?: (error: unknown) => void;
}

/** The names of {@link RedisConnectionOptions}, for the stores' unknown-option check. */
export const CONNECTION_OPTION_NAMES: readonly string[] = Object.keys({
  url: true,
  clientOptions: true,
  cluster: true,
  client: true,
  commandTimeoutMs: true,
  connectTimeoutMs: true,
  onError: true,
} satisfies Record<keyof RedisConnectionOptions, true>);

// Option names are checked with `checkOptionNames` from @svc/gateway-kit/store.

/**
 * Refuses a Redis URL node-redis could not use (empty, unparseable, another scheme, a database
 * that is not a number), before node-redis sees it: its own error (`TypeError: Invalid URL`)
 * carries the whole URL, password included, in its `input`. The refusal names the option and
 * the URL's form, and holds nothing of the URL (no `cause`).
 */
function checkUrl(refuse: Refuse, path: string, url: unknown): void {
  if (url === undefined) return;
  let usable = typeof url === 'string' && url !== '';
  if (usable) {
    try {
      // node-redis' own parser: what it accepts here, createClient accepts.
      NodeRedisClient.parseURL(url as string);
    } catch {
      // Not rethrown, not kept as a cause: the error (and its `input`) may hold the password.
      usable = false;
    }
  }
  if (!usable)
    refuse(
      path,
      url,
      'expected a Redis URL: redis[s]://[[user][:password]@]host[:port][/db] or unix:///path/to/socket.',
      true,
    );
}

/**
 * `url` without its password (`redis://user:***@host:6379/0`), for messages and logs.
 *
 * @example
 * redactRedisUrl('redis://:s3cret@cache:6379'); // 'redis://:***@cache:6379'
 */
function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'an unparseable Redis URL';
  }
}

/** Where `clientOptions.socket` says to connect. */
interface SocketAddress {
  readonly host?: unknown;
  readonly port?: unknown;
  readonly path?: unknown;
}

/** `clientOptions.socket` as given, when it says where to connect (`host`, `port` or `path`). */
function socketAddress(clientOptions: RedisClientOptions | undefined): SocketAddress | undefined {
  const socket = clientOptions?.socket as SocketAddress | undefined;
  return socket && ('host' in socket || 'port' in socket || 'path' in socket) ? socket : undefined;
}

/** How messages name a node given by `clientOptions.socket` (it holds no password). */
function socketTarget({ host = '127.0.0.1', port = 6379, path }: SocketAddress): string {
  if (path !== undefined) return `the Redis socket ${String(path)}`;
  const name = String(host);
  return `redis://${name.includes(':') ? `[${name}]` : name}:${String(port)}`;
}

/** A call in flight: when it must have been answered, and how to fail it. */
interface Pending {
  readonly deadline: number;
  readonly reject: (error: unknown) => void;
}

/**
 * Reported (to `onError`) when a lost connection is back. Not an error: the default reporter logs
 * it with `console.info`.
 *
 * @example
 * const onError = (event: unknown) =>
 *   event instanceof RedisConnectionRestored ? log.info(event.message) : log.warn(String(event));
 */
export class RedisConnectionRestored extends Error {
  /** Always `'RedisConnectionRestored'`. */
  override readonly name = 'RedisConnectionRestored';
}

/** A Lua script with its SHA1, run by `EVALSHA` with an `EVAL` fallback. */
export interface LuaScript {
  readonly source: string;
  readonly sha1: string;
}

/**
 * Wraps Lua source as a {@link LuaScript}.
 *
 * @example
 * const ping = lua("return redis.call('PING')");
 */
export function lua(source: string): LuaScript {
  return { source, sha1: createHash('sha1').update(source).digest('hex') };
}

// Error replies that mean "Redis cannot serve right now", as opposed to a bug (WRONGTYPE, ERR …).
const TRANSIENT_REPLY =
  /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS|OOM|NOSCRIPT|UNBLOCKED)\b/;

/** How long one store call may take by default (`commandTimeoutMs`), in ms. */
export const DEFAULT_COMMAND_TIMEOUT_MS = 2_000;

/** Reconnect quickly at first, then every second, forever: the store must recover on its own. */
function reconnectDelay(retries: number): number {
  return Math.min(50 * 2 ** retries, 1_000) + Math.floor(Math.random() * 50);
}

/** After a node's connection broke, re-read the cluster's topology this often (ms): a promoted replica is found within about this. */
const TOPOLOGY_REFRESH_MS = 500;

/**
 * One command connection (and, on demand, a pub/sub subscriber duplicated from it) with the
 * behaviour both stores need: fail fast while offline, translate outages into
 * {@link StoreUnavailableError}, run Lua scripts by SHA. Either one Redis node's client or a Redis
 * Cluster's (`cluster` is then true); commands are the same, the cluster client routes each to the
 * primary serving its first key's slot.
 */
export class RedisConnection {
  /**
   * The command client. Typed as one node's client: a cluster client offers the same keyed
   * commands (each routed by its first key), which is all the stores send through it.
   */
  readonly client: RedisClient;
  /** Whether `client` is a Redis Cluster client. */
  readonly cluster: boolean;
  readonly #owned: boolean;
  readonly #connectTimeoutMs: number;
  readonly #commandTimeoutMs: number;
  #resetting = false;
  readonly #report: (error: unknown) => void;
  readonly #connecting: Promise<unknown>;
  /** Where it connects, password hidden (for messages). */
  readonly #target: string;
  /** An outage was reported and the command connection is not back yet. */
  #down = false;
  #subscriber: RedisClient | undefined;
  #closed = false;
  /** What `close()` returns (the same promise to every caller). */
  #closing: Promise<void> | undefined;
  /** Resolves when `close()` is called: wakes whatever waits for a connection or a retry. */
  readonly #closeCalled: Promise<void>;
  #wake: () => void = () => {};
  /**
   * Connection attempts under way, until each settles: the ones this connection started (the
   * first connect, reconnects after a missed deadline, the subscriber's) and, once it is closing,
   * a cluster's node connections. `close()` waits for them.
   */
  readonly #attempts = new Set<Promise<void>>();
  /** A cluster's node connections seen since `close()` (see {@link release}). */
  readonly #nodeClients = new Set<RedisClient>();
  /** Primaries whose last WAIT came back short, and until when WAIT is skipped for them. */
  readonly #shortUntil = new WeakMap<object, number>();
  /** Calls in flight, with their deadlines (see {@link call}). */
  readonly #pending = new Set<Pending>();
  #watchdog: ReturnType<typeof setInterval> | undefined;
  /**
   * When (`performance.now()`) Redis first answered after the connection was last seen failing,
   * or after start-up; `undefined` while it has not answered since (see `answeringForMs`).
   */
  #answeringSince: number | undefined;
  /** Why Redis refused the command connection's login, while it does (`WRONGPASS …`, `NOAUTH …`). */
  #refusedLogin: string | undefined;

  /** `factory` names the store in option errors (`new RedisJobStore: commandTimeoutMs is …`). */
  constructor(options: RedisConnectionOptions, factory = 'new RedisConnection') {
    const refuse = refusalFor(factory);
    this.#closeCalled = new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    this.#connectTimeoutMs = options.connectTimeoutMs ?? 2_000;
    this.#commandTimeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
    timerMs(refuse, 'connectTimeoutMs', this.#connectTimeoutMs);
    timerMs(refuse, 'commandTimeoutMs', this.#commandTimeoutMs);
    this.#report = options.onError ?? defaultReporter;
    // Before node-redis parses them (its errors show the URL, password included).
    checkUrl(refuse, 'url', options.url);
    checkUrl(refuse, 'clientOptions.url', options.clientOptions?.url);
    checkUrl(refuse, 'cluster.defaults.url', options.cluster?.defaults?.url);
    for (const [index, node] of (options.cluster?.rootNodes ?? []).entries())
      checkUrl(refuse, `cluster.rootNodes[${index}].url`, node?.url);
    const given = [options.client && 'client', options.cluster && 'cluster', options.url && 'url'];
    if (given.filter(Boolean).length > 1)
      throw new GatewayConfigError(
        `${factory}: give one of url, cluster or client, not ${given.filter(Boolean).join(' and ')}.`,
      );
    // Without a URL, the default one unless clientOptions.socket says where to connect (a URL
    // would override its host and port).
    const socketGiven = socketAddress(options.clientOptions);
    const url =
      options.url ??
      options.clientOptions?.url ??
      (socketGiven ? undefined : 'redis://127.0.0.1:6379');
    if (options.client) {
      this.client = options.client as RedisClient;
      this.cluster = isCluster(options.client);
      this.#target = this.cluster ? 'the Redis Cluster client given' : 'the Redis client given';
      this.#owned = false;
      this.#connecting = Promise.resolve();
      return;
    }
    const socket = {
      reconnectStrategy: reconnectDelay,
      connectTimeout: this.#connectTimeoutMs,
    };
    if (options.cluster) {
      const { rootNodes, defaults = {}, ...rest } = options.cluster;
      if (!rootNodes?.length)
        refuse('cluster.rootNodes', rootNodes, 'expected at least one seed node.');
      this.#target = `the Redis Cluster at ${rootNodes
        .map((node) => (node.url ? redactRedisUrl(node.url) : 'a seed node'))
        .join(', ')}`;
      this.client = createCluster({
        // A promoted replica is found soon after its primary's connection broke (default 5 s).
        topologyRefreshOnReconnectionAttemptStrategy: TOPOLOGY_REFRESH_MS,
        // No node-redis command timeout (see the single-node client below).
        commandOptions: { timeout: 0 },
        ...rest,
        rootNodes: rootNodes.map((node) => ({
          ...node,
          socket: { ...socket, ...node.socket } as NonNullable<RedisClientOptions['socket']>,
        })),
        defaults: {
          // Queued commands would hang requests for as long as a primary is down; fail them at once.
          disableOfflineQueue: true,
          ...defaults,
          socket: { ...socket, ...defaults.socket } as NonNullable<RedisClientOptions['socket']>,
        },
      }) as unknown as RedisClient;
      this.cluster = true;
    } else {
      this.#target = url === undefined ? socketTarget(socketGiven ?? {}) : redactRedisUrl(url);
      const clientOptions = options.clientOptions ?? {};
      this.client = createClient({
        ...(url === undefined ? {} : { url }),
        // Queued commands would hang requests for as long as Redis is down; fail them at once.
        disableOfflineQueue: true,
        // No node-redis command timeout: `call` sets its own deadline on every command (a clearable
        // timer), while node-redis's (5 s by default since node-redis 5.x) arms an
        // AbortSignal.timeout per command, with listeners added and removed (≈ 8 % of the CPU per
        // async job in the Redis benchmark).
        commandOptions: { timeout: 0 },
        ...clientOptions,
        socket: { ...socket, ...clientOptions.socket } as NonNullable<RedisClientOptions['socket']>,
      }) as RedisClient;
      this.cluster = false;
    }
    this.#owned = true;
    this.#watch(this.client, 'command');
    // Started at once so the first request finds a ready connection; failures are retried (by
    // the reconnect strategy, or on a cluster by #connectUntilOpen) and reported through `error`
    // events.
    this.#connecting = this.#connect(this.client);
  }

  /**
   * Starts connecting `client`; the attempt is tracked until it settles (see `close()`). The
   * command connection of a cluster is connected again until it opens (see
   * {@link connectUntilOpen}).
   */
  #connect(client: RedisClient): Promise<void> {
    return this.#track(
      this.cluster && client === this.client ? this.#connectUntilOpen(client) : client.connect(),
    );
  }

  /**
   * Connects a cluster client, again and again until it is open or this connection is closed. A
   * cluster client's `connect()` gives up when no seed node answers (and the client stays
   * closed), unlike one node's, which keeps reconnecting: the store would never serve, even once
   * the cluster is up. Between attempts it waits as the reconnect strategy does (50 ms doubling
   * to about 1 s), never longer than `connectTimeoutMs` or `commandTimeoutMs`; `close()` ends the
   * wait at once. The first failure is reported (`error` event, see #watch), not every attempt.
   *
   * An attempt gets `connectTimeoutMs + commandTimeoutMs`: node-redis bounds only the TCP connect
   * of a node, not what it asks the node then, so a node that accepts connections and answers
   * nothing (paused, a stuck primary) would hold the attempt, and every slot with it, for as long
   * as it does not answer, even once its replica was promoted. A late attempt is destroyed and
   * the next one reads the topology afresh, from a seed node again.
   */
  async #connectUntilOpen(client: RedisClient): Promise<void> {
    const attemptMs = this.#connectTimeoutMs + this.#commandTimeoutMs;
    for (let attempt = 0; !this.#closed; attempt++) {
      let settled = false;
      const connecting = client.connect().then(
        () => {
          settled = true;
        },
        () => {
          // Reported through the client's `error` events.
          settled = true;
        },
      );
      // Not cut short by close(): it destroys the client, which ends the attempt, and waits for it.
      await settledWithin([connecting], attemptMs);
      if (!settled && !this.#closed) {
        destroyQuietly(client);
        // The attempt ends within a few ms once its node connections are destroyed (waited for,
        // so that it does not close the next one's session); one still reading a seed node's
        // topology cannot be reached and is left behind (it ends when that node answers), so
        // waiting longer would only delay the next attempt.
        await settledWithin([connecting], Math.min(250, this.#commandTimeoutMs));
      }
      if (this.#closed || (settled && client.isOpen)) return;
      await this.pause(
        Math.min(reconnectDelay(attempt), this.#connectTimeoutMs, this.#commandTimeoutMs),
      );
    }
  }

  /** Tracks a connection attempt in {@link attempts} until it settles; never rejects. */
  #track(connecting: Promise<unknown>): Promise<void> {
    const attempt = connecting.then(noop, noop);
    this.#attempts.add(attempt);
    void attempt.then(() => this.#attempts.delete(attempt));
    return attempt;
  }

  /**
   * Runs `command` once the connection is ready (waiting up to `connectTimeoutMs` for the first
   * connection), translating outages into {@link StoreUnavailableError}.
   */
  /**
   * Resolves once the connection is ready; rejects with a {@link StoreUnavailableError} naming the
   * URL (password hidden) when it is not within `connectTimeoutMs`. The connection keeps trying.
   */
  async ready(): Promise<void> {
    if (this.#closed) throw new StoreUnavailableError('The Redis store is closed.');
    if (this.client.isReady) return;
    await this.#awaitFirstConnection();
    if (this.#closed) throw new StoreUnavailableError('The Redis store is closed.');
    if (this.client.isReady) return;
    if (!this.#owned && this.client.isOpen) {
      // A client the caller connected may just be between reconnects: ask it.
      try {
        await this.call((client) => client.ping());
        return;
      } catch {
        // Reported below.
      }
    }
    throw new StoreUnavailableError(
      this.#refusedLogin === undefined
        ? `Cannot reach Redis at ${this.#target} within ${this.#connectTimeoutMs} ms.`
        : `Redis at ${this.#target} refused the login: ${this.#refusedLogin}`,
    );
  }

  async call<T>(command: (client: RedisClient) => Promise<T>): Promise<T> {
    if (this.#closed) throw new StoreUnavailableError('The Redis store is closed.');
    const started = Date.now();
    if (!this.client.isReady) {
      await this.#awaitFirstConnection();
      if (this.#closed) throw new StoreUnavailableError('The Redis store is closed.');
    }
    // node-redis drops a command's own timeout once the command is on the socket, so a Redis that
    // accepted it and then stopped answering would hold the call forever: the deadline is ours.
    // One watchdog timer checks every call in flight (a timer per call cost more than the call's
    // own bookkeeping in the job path).
    const deadline = started + this.#commandTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      const pending: Pending = { deadline, reject };
      const failed = (error: unknown): void => {
        this.#pending.delete(pending);
        const translated = translate(error);
        if (translated instanceof StoreUnavailableError) this.#answeringSince = undefined;
        reject(translated);
      };
      let answer: Promise<T>;
      try {
        answer = command(this.client);
      } catch (error) {
        failed(error);
        return;
      }
      this.#pending.add(pending);
      this.#watchdog ??= this.#startWatchdog();
      answer.then((value) => {
        this.#pending.delete(pending);
        this.#answeringSince ??= performance.now();
        resolve(value);
      }, failed);
    });
  }

  /** Fails calls past their deadline (and resets the connection); stops once none is in flight. */
  #startWatchdog(): ReturnType<typeof setInterval> {
    const tick = Math.min(100, Math.max(1, Math.floor(this.#commandTimeoutMs / 10)));
    const timer = setInterval(() => {
      if (this.#pending.size === 0) {
        clearInterval(timer);
        this.#watchdog = undefined;
        return;
      }
      const now = Date.now();
      let missed = false;
      for (const pending of this.#pending) {
        if (pending.deadline > now) continue;
        this.#pending.delete(pending);
        pending.reject(
          new StoreUnavailableError(`Redis did not answer within ${this.#commandTimeoutMs} ms.`),
        );
        missed = true;
      }
      if (missed) {
        this.#answeringSince = undefined;
        this.#reset();
      }
    }, tick);
    (timer as { unref?: () => void }).unref?.();
    return timer;
  }

  /**
   * Drops a connection that missed a deadline (its replies, if they ever come, would be out of
   * step with what waits for them) and connects again; the reconnect strategy (on a cluster,
   * #connectUntilOpen) retries until Redis answers. Commands meanwhile fail at once (no offline
   * queue).
   */
  #reset(): void {
    if (this.#resetting || this.#closed || !this.#owned) return;
    this.#resetting = true;
    if (!this.#down) {
      this.#down = true;
      this.#report(
        new StoreUnavailableError(`Redis at ${this.#target} missed a deadline: reconnecting.`),
      );
    }
    destroyQuietly(this.client);
    void this.#connect(this.client).finally(() => {
      this.#resetting = false;
    });
  }

  /**
   * Sends one raw command (`['ZREM', key, member]`), routed by `firstKey` on a cluster, with the
   * deadline of {@link call}: for the job path's one-command calls, without node-redis' command
   * builder.
   */
  send(firstKey: string, command: string[]): Promise<unknown> {
    return this.call((client) => this.#send(client, firstKey, command));
  }

  #send(client: RedisClient, firstKey: string | undefined, command: string[]): Promise<unknown> {
    return this.cluster
      ? (client as unknown as RedisClusterClient).sendCommand(firstKey, false, command)
      : client.sendCommand(command);
  }

  /** Runs a Lua script (EVALSHA, loading it with EVAL when Redis does not know it yet). */
  script(script: LuaScript, keys: string[], args: string[]): Promise<unknown> {
    return this.call(async (client) => {
      // The raw command (node-redis' `evalSha` builds the same one through a parser and two more
      // async layers per call); routed by the first key on a cluster.
      const command = ['EVALSHA', script.sha1, String(keys.length), ...keys, ...args];
      try {
        return await this.#send(client, keys[0], command);
      } catch (error) {
        // After a restart or SCRIPT FLUSH the cache is empty: EVAL loads it again.
        if (error instanceof ErrorReply && error.message.startsWith('NOSCRIPT')) {
          command[0] = 'EVAL';
          command[1] = script.source;
          return await this.#send(client, keys[0], command);
        }
        throw error;
      }
    });
  }

  /**
   * Subscribes `listener` to `channels` on the pub/sub subscriber: a duplicate connection (a
   * subscribed connection can run no other commands), opened by the first call. On one node,
   * classic `SUBSCRIBE`; on a cluster, sharded `SSUBSCRIBE` (Redis ≥ 7), one per slot (Redis
   * refuses channels of several slots in one), each on the shard serving it, so a message crosses
   * no other node. node-redis resubscribes after a reconnect or a failover; `onReady` (the first
   * call's) runs after every (re)connect so callers can catch up on messages sent meanwhile.
   *
   * Resolves once every channel is subscribed. Rejects when the subscriber is not ready within
   * `connectTimeoutMs` or Redis does not confirm within `commandTimeoutMs`
   * ({@link StoreUnavailableError}), or a subscribe is refused; nothing is retried here. Calling it
   * again with the same `listener` subscribes what is missing (a channel already subscribed keeps
   * the listener once), and connects again a cluster subscriber that gave up connecting (no seed
   * node answered).
   */
  async subscribe(
    channels: string[],
    listener: (message: string) => void,
    onReady: () => void,
  ): Promise<void> {
    // A subscriber opened now would outlive the store.
    if (this.#closed) throw new StoreUnavailableError('The Redis store is closed.');
    let subscriber = this.#subscriber;
    if (!subscriber) {
      subscriber = this.client.duplicate({
        commandOptions: { timeout: this.#commandTimeoutMs },
      }) as RedisClient;
      this.#watch(subscriber, 'subscriber');
      subscriber.on(this.cluster ? 'node-ready' : 'ready', onReady);
      this.#subscriber = subscriber;
    }
    // A client that stopped trying is connected again: a cluster client whose connect found no
    // seed node (a single node's client keeps reconnecting by itself, and stays open meanwhile).
    const connecting = subscriber.isOpen ? undefined : this.#connect(subscriber);
    // SUBSCRIBE on a client still connecting would be dropped at its first connection error, and a
    // cluster client refuses SSUBSCRIBE (ClientOfflineError) until it knows the slots.
    await this.#whenReady(subscriber, connecting);
    if (this.#closed) throw new StoreUnavailableError('The Redis store is closed.');
    if (!subscriber.isReady)
      throw new StoreUnavailableError(
        `The Redis subscriber connection to ${this.#target} is not ready after ${this.#connectTimeoutMs} ms.`,
      );
    let subscribed: Promise<unknown>;
    if (this.cluster) {
      const cluster = subscriber as unknown as RedisClusterClient;
      const bySlot = new Map<number, string[]>();
      for (const channel of channels) {
        const slot = slotOf(channel);
        const group = bySlot.get(slot);
        if (group) group.push(channel);
        else bySlot.set(slot, [channel]);
      }
      subscribed = Promise.all(
        [...bySlot.values()].map((group) => cluster.sSubscribe(group, listener)),
      );
    } else {
      subscribed = subscriber.subscribe(channels, listener);
    }
    // node-redis gives pub/sub commands no timeout: a Redis that stopped answering would hold
    // this call (and the caller's retry) forever.
    try {
      await withinOrFail(
        subscribed,
        this.#commandTimeoutMs,
        () =>
          new StoreUnavailableError(
            `Redis did not confirm a subscribe within ${this.#commandTimeoutMs} ms.`,
          ),
      );
    } catch (error) {
      throw translate(error);
    }
  }

  /**
   * Resolves once `client` is ready, `connecting` settled (a cluster's connect that failed),
   * `close()` was called, or `connectTimeoutMs` passed, whichever comes first.
   */
  async #whenReady(client: RedisClient, connecting: Promise<void> | undefined): Promise<void> {
    if (client.isReady) return;
    // A cluster client is ready once it knows the slots (`connect`); one node's once it answers.
    const event = this.cluster ? 'connect' : 'ready';
    let ready: () => void = noop;
    const readied = new Promise<void>((resolve) => {
      ready = resolve;
    });
    client.on(event, ready);
    try {
      await settledWithin(
        [readied, this.#closeCalled, ...(connecting ? [connecting] : [])],
        this.#connectTimeoutMs,
        'any',
      );
    } finally {
      client.off(event, ready);
    }
  }

  /**
   * Publishes on a channel from outside a script: on a cluster, `SPUBLISH` to the shard serving
   * the channel's slot (what {@link subscribe} listens to); on one node, `PUBLISH`.
   */
  publish(channel: string, message: string): Promise<unknown> {
    return this.call((client) =>
      this.cluster
        ? (client as unknown as RedisClusterClient).sPublish(channel, message)
        : client.publish(channel, message),
    );
  }

  /**
   * Waits until `replicas` replicas of the primary holding `key` acknowledged every write sent
   * before it (Redis `WAIT`), for `timeoutMs` at most. Returns how many did, or `undefined` when it
   * did not wait: that primary came up short within the last `10 × timeoutMs` (e.g. a promoted
   * replica whose own replica is not back yet), so each write does not pay the full timeout.
   */
  waitForReplicas(key: string, replicas: number, timeoutMs: number): Promise<number | undefined> {
    return this.call(async (client) => {
      const node = this.cluster
        ? ((await (client as unknown as RedisClusterClient).getNodeClientForKey(
            key,
          )) as unknown as RedisClient)
        : client;
      if ((this.#shortUntil.get(node) ?? 0) > Date.now()) return undefined;
      const acknowledged = await node.wait(replicas, timeoutMs);
      if (acknowledged < replicas) this.#shortUntil.set(node, Date.now() + 10 * timeoutMs);
      else this.#shortUntil.delete(node);
      return acknowledged;
    });
  }

  /**
   * How long, in ms, Redis has answered every call of this connection: since the first answer
   * after it was last seen failing (a call that found it unreachable or missed its deadline, a
   * lost connection), or after start-up. `0` while it has not answered since. The job store's
   * sweeper waits for a lease's length of it after an outage before it fails lapsed leases.
   */
  answeringForMs(): number {
    return this.#answeringSince === undefined ? 0 : performance.now() - this.#answeringSince;
  }

  /**
   * Reports a failure of background work (renewals, sweeps, polling): once per outage for
   * outages (the first one marks the connection down), always for anything else.
   */
  report(error: unknown): void {
    // Only a connection this store watches can tell when the outage ends (a `client` given by
    // the caller is not watched): otherwise every failure is reported.
    if (error instanceof StoreUnavailableError && this.#owned) {
      if (this.#down) return;
      this.#down = true;
    }
    this.#report(error);
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Closes every connection this one opened (the command connection unless it was given, the
   * subscriber, on a cluster each node's), whatever state each is in: a ready one gracefully
   * (pending replies first), one still connecting or reconnecting at once, and one that finishes
   * opening later the moment it does. Resolves once they are released, within `commandTimeoutMs`
   * whatever Redis does; every caller gets the same promise.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    this.#closed = true;
    this.#wake();
    const deadline = performance.now() + this.#commandTimeoutMs;
    const clients = [this.#subscriber, this.#owned ? this.client : undefined].filter(
      (client): client is RedisClient => client !== undefined,
    );
    // A cluster forgets its node connections when it closes: note them first, so each can still
    // be destroyed when a graceful close times out or when it finishes connecting afterwards.
    for (const client of clients) this.#noteNodeClients(client);
    await Promise.all(clients.map((client) => shutDown(client, this.#commandTimeoutMs)));
    for (const client of clients) this.#release(client);
    // node-redis only knows a socket once it has connected: one still connecting when the client
    // was destroyed would connect afterwards and stay open (the `connect` listeners of #watch and
    // #noteNodeClients destroy it then). Wait for the attempts under way, so that nothing of the
    // store is left once this resolves: a refused or destroyed attempt ends at once, one waiting
    // to retry after its back-off (about 1 s at most). A cluster still discovering its nodes may
    // open node connections meanwhile: each release notes them, and they are waited for too.
    while (this.#attempts.size > 0 && performance.now() < deadline) {
      await settledWithin([...this.#attempts], deadline - performance.now());
      for (const client of clients) this.#release(client);
    }
    clearInterval(this.#watchdog);
    this.#watchdog = undefined;
    for (const pending of this.#pending)
      pending.reject(new StoreUnavailableError('The Redis store is closed.'));
    this.#pending.clear();
  }

  /**
   * Destroys `client` (after `close()`): for a cluster, also every node connection it opened,
   * including those it no longer lists. Harmless on a client already destroyed.
   */
  #release(client: RedisClient): void {
    if (!isCluster(client)) {
      destroyQuietly(client);
      return;
    }
    this.#noteNodeClients(client);
    destroyQuietly(client);
    for (const node of this.#nodeClients) destroyQuietly(node);
  }

  /** After `close()`: notes a cluster's node connections, each destroyed as soon as it connects. */
  #noteNodeClients(client: RedisClient): void {
    if (!isCluster(client)) return;
    for (const { client: node, connecting } of nodeClientsOf(
      client as unknown as RedisClusterClient,
    )) {
      if (connecting) void this.#track(connecting);
      if (this.#nodeClients.has(node)) continue;
      this.#nodeClients.add(node);
      node.on('connect', () => destroyQuietly(node));
    }
  }

  /**
   * Resolves after `ms`, or as soon as the connection is closed (its timer then cleared): for
   * background retries, so none outlives the store.
   */
  async pause(ms: number): Promise<void> {
    await settledWithin([this.#closeCalled], ms);
  }

  /** How long one store call may take, in ms (`commandTimeoutMs`). */
  get commandTimeoutMs(): number {
    return this.#commandTimeoutMs;
  }

  /**
   * Tries `write` again until it resolves `true`, for `forMs` at most: pauses of 100 ms doubling
   * up to 1 s between tries, a rejection counting as not done. For idempotent writes whose loss
   * would break a promise (a completion, an acknowledgement) when Redis did not answer, or a
   * failover may have lost them. Stops when the connection is closed. Resolves whether one try
   * landed; never rejects.
   */
  async retry(write: () => Promise<boolean>, forMs: number): Promise<boolean> {
    const until = performance.now() + forMs;
    for (let delay = 100; performance.now() < until; delay = Math.min(2 * delay, 1_000)) {
      // The last pause ends when the time given does, for one last try then.
      await this.pause(Math.min(delay, until - performance.now()));
      if (this.#closed) return false;
      try {
        if (await write()) return true;
      } catch {
        // Redis still unreachable: the next try.
      }
    }
    return false;
  }

  async #awaitFirstConnection(): Promise<void> {
    await settledWithin([this.#connecting, this.#closeCalled], this.#connectTimeoutMs, 'any');
  }

  #watch(client: RedisClient, role: 'command' | 'subscriber'): void {
    let lost = false;
    const lose = (error: unknown): void => {
      // Redis' own reason, which names no password: what ready() says rather than "cannot reach".
      if (
        role === 'command' &&
        error instanceof Error &&
        /^(WRONGPASS|NOAUTH)\b/.test(error.message)
      )
        this.#refusedLogin = error.message;
      if (lost || this.#closed) return;
      lost = true;
      if (role === 'command') {
        this.#answeringSince = undefined;
        if (this.#down) return; // a missed deadline already said so
        this.#down = true;
      }
      const reason = error instanceof Error && error.message ? `: ${error.message}` : '';
      this.#report(
        new StoreUnavailableError(`Redis ${role} connection to ${this.#target} lost${reason}.`, {
          cause: error,
        }),
      );
    };
    // Without an `error` listener an EventEmitter throws and would crash the process. A cluster
    // reports each node's connection as `node-error` / `node-ready`.
    client.on('error', lose);
    if (this.cluster) client.on('node-error', lose);
    // A connection that finishes opening after close() (see #close) is closed as it does.
    client.on(this.cluster ? 'node-connect' : 'connect', () => {
      if (this.#closed) this.#release(client);
    });
    client.on(this.cluster ? 'node-ready' : 'ready', () => {
      const wasDown = lost || (role === 'command' && this.#down);
      lost = false;
      if (role === 'command') {
        this.#down = false;
        this.#refusedLogin = undefined;
      }
      if (wasDown && !this.#closed)
        this.#report(
          new RedisConnectionRestored(`Redis ${role} connection to ${this.#target} restored.`),
        );
    });
  }
}

/**
 * Closes a ready client gracefully, for `timeoutMs` at most, and destroys one that is not ready
 * (connecting, reconnecting). Either way the caller destroys it again afterwards (see
 * `RedisConnection.#release`): destroying a client while its socket connects misses that socket.
 */
async function shutDown(client: RedisClient, timeoutMs: number): Promise<void> {
  if (!client.isOpen) return;
  if (!client.isReady) {
    destroyQuietly(client);
    return;
  }
  // A graceful close waits for pending replies; a Redis that dies meanwhile must not hold it.
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([
      client.close(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('close timed out')), timeoutMs);
      }),
    ]);
  } catch {
    client.destroy();
  } finally {
    clearTimeout(timer);
  }
}

function destroyQuietly(client: RedisClient): void {
  try {
    client.destroy();
  } catch {
    // Already closed.
  }
}

/** A node connection of a cluster client, with its connect promise while it is connecting. */
interface NodeConnection {
  readonly client: RedisClient;
  readonly connecting: Promise<unknown> | undefined;
}

/**
 * Every node connection a cluster client holds now: each node's command connection and sharded
 * pub/sub connection, and its classic pub/sub connection.
 */
function nodeClientsOf(cluster: RedisClusterClient): NodeConnection[] {
  type Held = { client?: unknown; connectPromise?: Promise<unknown> } | undefined;
  const found: NodeConnection[] = [];
  const add = (held: Held): void => {
    if (held?.client)
      found.push({ client: held.client as RedisClient, connecting: held.connectPromise });
  };
  const nodes: (Held & { pubSub?: Held })[] = [
    ...cluster.masters,
    ...cluster.replicas,
    ...cluster.nodeByAddress.values(),
  ];
  for (const node of nodes) {
    add(node);
    add(node?.pubSub);
  }
  add(cluster.pubSubNode);
  return found;
}

/**
 * Resolves once every promise in `promises` settled (`'any'`: once one did), or after `ms`
 * (whichever comes first; its timer is cleared either way). Never rejects.
 */
async function settledWithin(
  promises: readonly Promise<unknown>[],
  ms: number,
  wait: 'all' | 'any' = 'all',
): Promise<void> {
  if (ms <= 0 || promises.length === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const settled = promises.map((promise) => promise.then(noop, noop));
  await Promise.race([
    wait === 'all' ? Promise.all(settled) : Promise.race(settled),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Settles as `promise` does, or rejects with `timedOut()` once `ms` passed first (its timer
 * cleared either way; a later rejection of `promise` is then ignored).
 */
async function withinOrFail<T>(promise: Promise<T>, ms: number, timedOut: () => Error): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  promise.catch(noop);
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(timedOut()), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function noop(): void {}

/** Redis outages become {@link StoreUnavailableError}; error replies that signal bugs stay as they are. */
function translate(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  if (error instanceof ErrorReply && !TRANSIENT_REPLY.test(error.message)) return error;
  if (error instanceof TypeError || error instanceof RangeError) return error;
  return new StoreUnavailableError(
    `The Redis store is unavailable: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}

/** One line per state change; a stack only for what is not an outage (a bug). */
function defaultReporter(error: unknown): void {
  const tag = '[@svc/gateway-kit-redis]';
  if (error instanceof RedisConnectionRestored) console.info(`${tag} ${error.message}`);
  else if (error instanceof StoreUnavailableError) console.warn(`${tag} ${error.message}`);
  else console.error(tag, error);
}

/**
 * Whether the options connect to a Redis Cluster (a `cluster` or a cluster `client`), known before
 * connecting.
 *
 * @example
 * connectsToCluster({ url: 'redis://127.0.0.1:6379' }); // false
 */
export function connectsToCluster(options: RedisConnectionOptions): boolean {
  return (
    options.cluster !== undefined || (options.client !== undefined && isCluster(options.client))
  );
}

/** Whether `client` is a node-redis cluster client (`createCluster()`). */
function isCluster(client: RedisClient | RedisClusterClient): boolean {
  return typeof (client as RedisClusterClient).getNodeClientForKey === 'function';
}
