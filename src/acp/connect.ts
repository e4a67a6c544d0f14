/**
 * What `agent()` and `client()` share: handler registration, opening an `AcpConnection` per stream, connecting
 * two apps in memory, `onConnect` handlers, and `connectWith`'s run-until-done. Each app supplies only what
 * differs: its side and the contexts its handlers receive.
 */
import {
  isRecord,
  LINK,
  type IncomingRequestContext,
  type Logger,
  type MaybePromise,
  type Stream,
  type TapListener,
} from "../jsonrpc/index.js";
import { createMemoryPair } from "../transports/memory.js";
import { AcpConnection, type AcpConnectionOptions } from "./acp-connection.js";
import type { AppConnection, AppOptions } from "./app-types.js";
import { APP_FLAVOR, methodIndex, type ProtocolFlavor, type Side } from "./flavor.js";
import { stableFlavor, unstableFlavor } from "./flavors.js";
import { parserFunction, type ParamsParser } from "./routes.js";

/** Which side an app is. Both apps carry it, so that an app can tell whether it can connect to another. */
export const APP_SIDE: unique symbol = Symbol.for("acpkit.app.side");

/**
 * Opens an app on a stream without running its `onConnect` handlers. `ClientApp.connect(agentApp)` and
 * `AgentApp.connect(clientApp)` call it on the other app, so neither folder imports the other.
 */
export const OPEN_APP: unique symbol = Symbol.for("acpkit.app.open");

/** The `AcpConnection` behind a context, connection handle or terminal: for toolkits built on the apps. */
export const ACP_CONNECTION: unique symbol = Symbol.for("acpkit.acpConnection");

/** An app of side `S` that another app can connect to in memory. */
export interface ConnectableApp<S extends Side = Side> {
  readonly [APP_SIDE]: S;
  [OPEN_APP](stream: Stream): OpenedApp<unknown>;
}

/** An app opened on a stream: its connection, its handle, and its `onConnect` handlers, not yet run. */
export interface OpenedApp<Handle> {
  readonly acp: AcpConnection;
  readonly handle: Handle;
  /** Runs the `onConnect` handlers in order; a throw closes the connection and is rethrown. */
  runConnectHandlers(): void;
}

/** Something that closes: what `onConnect` handlers get (a connection handle). */
export interface Closable {
  close(error?: unknown): void;
}

/** The side-neutral part of the handle `connect()` returns. */
export class ConnectionHandle implements AppConnection {
  constructor(private readonly connection: AcpConnection) {}

  /** The connection behind this handle (for acpkit toolkits). */
  get [ACP_CONNECTION](): AcpConnection {
    return this.connection;
  }

  get signal(): AbortSignal {
    return this.connection.signal;
  }

  get closed(): Promise<void> {
    return this.connection.closed;
  }

  close(error?: unknown): void {
    this.connection.close(error);
  }

  peerSupports(method: string): boolean {
    return this.connection.peerSupports(method);
  }

  tap(listener: TapListener): () => void {
    return this.connection.tap(listener);
  }
}

/** What an app plugs into `AppCore`: its per-connection state, its handle and the contexts its handlers get. */
export interface AppSide<State, Handle extends Closable> {
  readonly side: Side;
  /**
   * What the app's connection is built with beyond the app's options, decided before it exists (the agent's
   * initialization gate, protocol v2's admission).
   */
  connectionSettings?(core: AppCore<State, Handle>): Pick<AcpConnectionOptions, "requireInitialize" | "admission">;
  createState(acp: AcpConnection): State;
  createHandle(state: State): Handle;
  requestContext(state: State, params: unknown, request: IncomingRequestContext, method: string): unknown;
  notificationContext(state: State, params: unknown, method: string): unknown;
  /** Last touches on a freshly opened connection's routes (protocol v2's `initialize` parser, the client's feed). */
  configure?(state: State, core: AppCore<State, Handle>): void;
}

type UserHandler = (context: any) => MaybePromise<unknown>;
type Registration = { readonly parse?: (params: unknown) => unknown; readonly handler: UserHandler };

/** True for a `Stream`: `{ readable, writable }`, or an acpkit transport carrying a link. */
export function isStream(value: unknown): value is Stream {
  return isRecord(value) && (("readable" in value && "writable" in value) || LINK in value);
}

function isConnectableApp(value: unknown): value is ConnectableApp {
  return typeof value === "object" && value !== null && OPEN_APP in value && APP_SIDE in value;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof value === "object" && value !== null && typeof (value as PromiseLike<unknown>).then === "function";
}

function namedLogger(logger: Logger | undefined, name: string | undefined): Logger | undefined {
  if (logger === undefined || name === undefined) return logger;
  const tag = (fields?: Record<string, unknown>) => ({ app: name, ...fields });
  return {
    debug: (message, fields) => logger.debug(message, tag(fields)),
    info: (message, fields) => logger.info(message, tag(fields)),
    warn: (message, fields) => logger.warn(message, tag(fields)),
    error: (message, fields) => logger.error(message, tag(fields)),
  };
}

/**
 * Calls `onConnect` handlers synchronously, in order, without awaiting them. A handler that throws closes the
 * connection and the error is rethrown; one that rejects closes the connection with the rejection.
 */
export function runConnectHandlers<H extends Closable>(
  handle: H,
  handlers: readonly ((handle: H) => MaybePromise<void>)[],
): void {
  for (const handler of handlers) {
    let result: unknown;
    try {
      result = handler(handle);
    } catch (error) {
      handle.close(error);
      throw error;
    }
    if (isPromiseLike(result)) result.then(undefined, (error: unknown) => handle.close(error));
  }
}

/**
 * Runs `op` (on a later microtask), then closes the connection. Resolves or rejects as `op` does; rejects with the
 * close reason (a `ConnectionClosedError`) if the connection closes before `op` settles.
 */
export function runUntil<T>(acp: AcpConnection, op: () => MaybePromise<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const signal = acp.signal;
    const onClose = () => reject(signal.reason);
    if (signal.aborted) onClose();
    else signal.addEventListener("abort", onClose, { once: true });
    const finish = () => {
      signal.removeEventListener("abort", onClose);
      acp.close();
    };
    Promise.resolve()
      .then(op)
      .then(
        (value) => {
          finish();
          resolve(value);
        },
        (error: unknown) => {
          finish();
          reject(error);
        },
      );
  });
}

/**
 * The side-neutral body of an app: its registered handlers and `onConnect` handlers, and how it opens
 * connections. Handlers are copied onto each connection when it opens: registering later affects only later
 * connections.
 */
export class AppCore<State, Handle extends Closable> {
  readonly flavor: ProtocolFlavor;
  private readonly requests = new Map<string, Registration>();
  private readonly notifications = new Map<string, Registration>();
  private readonly connectHandlers: ((handle: Handle) => MaybePromise<void>)[] = [];
  private readonly connectionOptions: AcpConnectionOptions;

  constructor(
    private readonly app: AppSide<State, Handle>,
    readonly options: AppOptions = {},
  ) {
    this.flavor =
      (options as { [APP_FLAVOR]?: ProtocolFlavor })[APP_FLAVOR] ?? (options.unstable ? unstableFlavor : stableFlavor);
    this.connectionOptions = {
      logger: namedLogger(options.logger, options.name),
      requestTimeoutMs: options.requestTimeoutMs,
      validateOutgoing: options.validateOutgoing,
      validateResponses: options.validateResponses,
      enforceCapabilities: options.enforceCapabilities,
    };
  }

  /** Whether a handler is registered for request `method` (not counting the fallback). */
  hasRequestHandler(method: string): boolean {
    return this.requests.has(method);
  }

  /**
   * Registers a request handler: `(method, handler)` for table methods and `"*"`, `(method, parser, handler)` for
   * others.
   */
  onRequest(method: string, parserOrHandler: unknown, handler?: unknown): void {
    this.register("request", this.requests, method, parserOrHandler, handler);
  }

  /** Registers a notification handler, with the same shapes as `onRequest`. */
  onNotification(method: string, parserOrHandler: unknown, handler?: unknown): void {
    this.register("notification", this.notifications, method, parserOrHandler, handler);
  }

  onConnect(handler: (handle: Handle) => MaybePromise<void>): void {
    this.connectHandlers.push(handler);
  }

  private register(
    kind: "request" | "notification",
    into: Map<string, Registration>,
    method: string,
    a: unknown,
    b: unknown,
  ): void {
    const hasParser = b !== undefined;
    const handler = (hasParser ? b : a) as UserHandler;
    if (typeof handler !== "function") throw new TypeError(`The ${kind} handler for "${method}" must be a function.`);
    if (method === "*") {
      if (hasParser) throw new Error("Wildcard handlers receive raw params; omit the parser.");
      if (into.has("*")) throw new Error(`A ${kind} fallback is already registered.`);
    } else if (!hasParser && !this.handlesHere(kind, method)) {
      throw new Error(`Unknown ACP ${kind} method '${method}'. Pass a params parser for custom methods.`);
    }
    into.set(method, { parse: hasParser ? parserFunction(a as ParamsParser<unknown>) : undefined, handler });
  }

  private handlesHere(kind: "request" | "notification", method: string): boolean {
    const here = methodIndex(this.flavor, this.app.side).here;
    return (kind === "request" ? here.requests : here.notifications).has(method);
  }

  /** Opens this app on a stream: a new connection with this app's handlers. `onConnect` handlers are not run yet. */
  open(stream: Stream): OpenedApp<Handle> {
    const acp = new AcpConnection(this.app.side, stream, this.flavor, {
      ...this.connectionOptions,
      ...this.app.connectionSettings?.(this),
    });
    const state = this.app.createState(acp);
    for (const [method, { parse, handler }] of this.requests) {
      acp.routes.onRequest(method, {
        parse,
        handler: (params, request, actual) => handler(this.app.requestContext(state, params, request, actual)),
      });
    }
    for (const [method, { parse, handler }] of this.notifications) {
      acp.routes.onNotification(method, {
        parse,
        handler: (params, actual) => handler(this.app.notificationContext(state, params, actual)) as MaybePromise<void>,
      });
    }
    this.app.configure?.(state, this);
    const handle = this.app.createHandle(state);
    return { acp, handle, runConnectHandlers: () => runConnectHandlers(handle, this.connectHandlers) };
  }

  /**
   * Connects to a stream, or to an app of the other side through an in-memory pair (closing either connection
   * closes the other, with the same reason). Runs the `onConnect` handlers (the other app's first); a throw
   * closes both connections and is rethrown.
   */
  connect(target: Stream | ConnectableApp): OpenedApp<Handle> {
    if (isConnectableApp(target)) {
      if (target[APP_SIDE] === this.app.side) {
        throw new TypeError(
          `An ${this.app.side} app can only connect to an app of the other side, not to another ${this.app.side}.`,
        );
      }
      const [mine, theirs] = createMemoryPair();
      const peer = target[OPEN_APP](theirs);
      const own = this.open(mine);
      closeTogether(own.acp, peer.acp);
      try {
        peer.runConnectHandlers();
        own.runConnectHandlers();
      } catch (error) {
        peer.acp.close(error);
        own.acp.close(error);
        throw error;
      }
      return own;
    }
    if (!isStream(target)) {
      throw new TypeError(
        "connect() takes a Stream ({ readable, writable }, e.g. from ndJsonStream) or an app of the other side.",
      );
    }
    const own = this.open(target);
    own.runConnectHandlers();
    return own;
  }
}

/**
 * Connects (as `connect`), runs `op` with the new connection's handle, then closes the connection. Rejects when
 * connecting fails (an `onConnect` handler threw), when `op` rejects, or with the close reason when the connection
 * closes before `op` settles.
 */
export function connectWith<State, Handle extends Closable, T>(
  core: AppCore<State, Handle>,
  target: Stream | ConnectableApp,
  op: (handle: Handle) => MaybePromise<T>,
): Promise<T> {
  let opened: OpenedApp<Handle>;
  try {
    opened = core.connect(target);
  } catch (error) {
    return Promise.reject(error);
  }
  return runUntil(opened.acp, () => op(opened.handle));
}

function closeTogether(a: AcpConnection, b: AcpConnection): void {
  const follow = (from: AcpConnection, to: AcpConnection) => {
    if (from.signal.aborted) to.close(from.signal.reason);
    else from.signal.addEventListener("abort", () => to.close(from.signal.reason), { once: true });
  };
  follow(a, b);
  follow(b, a);
}
