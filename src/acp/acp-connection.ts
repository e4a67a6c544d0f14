import {
  CapabilityMissingError,
  JsonRpcConnection,
  RequestError,
  defaultLogger,
  type Dispatcher,
  type IncomingRequestContext,
  type Logger,
  type MessageLink,
  type SendRequestOptions,
  type Stream,
  type TapListener,
} from "../jsonrpc/index.js";
import type { MaybePromise } from "../jsonrpc/messages.js";
import { rejectedHandled } from "../jsonrpc/handled.js";
import { hasCapability, peerSupports, SchemaValidationError, type MethodInfo } from "../protocol/index.js";
import { linkFromStream } from "../transports/stream-link.js";
import { outgoingMode, type AcpConnectionOptions } from "./acp-connection-options.js";
import { whenReleased, type Admission } from "./admission.js";
import { methodIndex, peerOf, type MethodIndex, type ProtocolFlavor, type Side } from "./flavor.js";
import { parseIncoming } from "./incoming-params.js";
import { Routes, type RequestRoute } from "./routes.js";
import { SchemaReports } from "./schema-reports.js";

export type { AcpConnectionOptions, OutgoingValidation, ResponseValidation } from "./acp-connection-options.js";

const EMPTY_OBJECT_RESULT = () => ({});

/**
 * The ACP core both faces (the 1.x classes and the 2.x apps) stand on: a JSON-RPC connection plus the method
 * table. It validates what arrives (leniently, per the schema's annotations), checks what leaves (reporting, or
 * refusing in strict mode),
 * answers unknown methods with -32601, ignores unknown notifications, remembers the peer's capabilities from
 * `initialize`, and accepts `null` where an empty result is expected while sending `{}`.
 */
export class AcpConnection {
  readonly rpc: JsonRpcConnection;
  readonly routes = new Routes();
  readonly logger: Logger;
  /** The capabilities the peer advertised in `initialize` (client: agentCapabilities; agent: clientCapabilities). */
  peerCapabilities: Record<string, unknown> | undefined;
  /** See `AcpConnectionOptions.requireInitialize`. */
  readonly requireInitialize: boolean;
  /** See `AcpConnectionOptions.admission`. */
  readonly admission: Admission | undefined;
  private initialized = false;
  private readonly index: MethodIndex;
  private readonly outgoing: "warn" | "strict" | "off";
  private readonly strictResponses: boolean;
  private readonly enforceCapabilities: boolean;
  private readonly reports: SchemaReports;
  private readonly parsers = new Map<string, (raw: unknown) => unknown>();

  constructor(
    readonly side: Side,
    transport: Stream | MessageLink,
    readonly flavor: ProtocolFlavor,
    options: AcpConnectionOptions = {},
  ) {
    this.logger = options.logger ?? defaultLogger;
    this.reports = new SchemaReports(this.logger);
    this.index = methodIndex(flavor, side);
    this.outgoing = outgoingMode(options.validateOutgoing);
    this.strictResponses = options.validateResponses === "strict";
    this.enforceCapabilities = options.enforceCapabilities ?? false;
    this.requireInitialize = options.requireInitialize ?? false;
    this.admission = options.admission;
    const link = "start" in transport && "send" in transport ? transport : linkFromStream(transport);
    const dispatcher: Dispatcher = {
      request: (method, params, context) => this.dispatchRequest(method, params, context),
      notification: (method, params) => this.dispatchNotification(method, params),
    };
    this.rpc = new JsonRpcConnection(link, dispatcher, options);
  }

  get signal(): AbortSignal {
    return this.rpc.signal;
  }

  get closed(): Promise<void> {
    return this.rpc.closed;
  }

  close(reason?: unknown): void {
    this.rpc.close(reason);
  }

  tap(listener: TapListener): () => void {
    return this.rpc.tap(listener);
  }

  /**
   * Whether the peer advertised what `method` needs (true for ungated and extension methods; gated ones are false
   * before initialize).
   */
  peerSupports(method: string): boolean {
    if (this.flavor.version === 1) return peerSupports(method, this.peerCapabilities, peerOf(this.side));
    const info = this.index.peer.requests.get(method) ?? this.index.peer.notifications.get(method);
    const gate = info?.capability;
    if (gate === undefined || gate.advertisedBy !== peerOf(this.side)) return true;
    return hasCapability(this.peerCapabilities, gate.path);
  }

  /** Sends a request; typed methods are checked on the way out and their results validated on the way in. */
  request<T = unknown>(method: string, params?: unknown, options?: SendRequestOptions): Promise<T> {
    const info = this.index.peer.requests.get(method);
    if (info !== undefined) {
      const refused = this.refuseOutgoing(info, params);
      if (refused) return rejectedHandled(refused);
    }
    return this.rpc.request<T>(method, params, options, info ? this.resultParser<T>(info) : undefined);
  }

  /** Sends a notification; typed methods are checked on the way out. */
  notify(method: string, params?: unknown): Promise<void> {
    const info = this.index.peer.notifications.get(method);
    if (info !== undefined) {
      const refused = this.refuseOutgoing(info, params);
      if (refused) return rejectedHandled(refused);
    }
    return this.rpc.notify(method, params);
  }

  private refuseOutgoing(info: MethodInfo, params: unknown): Error | undefined {
    if (this.enforceCapabilities && info.capability && !this.peerSupports(info.method)) {
      return new CapabilityMissingError(
        info.method,
        `${info.capability.advertisedBy}Capabilities.${info.capability.path.join(".")}`,
      );
    }
    if (this.outgoing !== "off") {
      const schema = this.flavor.schemas[info.params]!;
      const value = params ?? {};
      // `is` allocates nothing; the issues are collected only for a message that fails.
      if (!schema.is(value)) {
        const issues = schema.check(value);
        if (this.outgoing === "strict") return new SchemaValidationError(info.params, issues);
        this.reports.report("sent", info, info.params, issues);
      }
    }
    return undefined;
  }

  /** The result parser of a method, built once per connection (requests are the round-trip hot path). */
  private resultParser<T>(info: MethodInfo): ((raw: unknown) => T) | undefined {
    if (info.result === undefined) return undefined;
    let parser = this.parsers.get(info.method);
    if (parser === undefined) {
      const schema = this.flavor.schemas[info.result]!;
      const parse = this.strictResponses
        ? (raw: unknown) => schema.parse(raw)
        : (raw: unknown) => {
            try {
              return schema.parse(raw);
            } catch (error) {
              if (!(error instanceof SchemaValidationError)) throw error;
              this.reports.report("received", info, info.result!, error.issues);
              return raw;
            }
          };
      const field = this.flavor.capabilitiesField.result;
      parser =
        info.method === "initialize" && this.side === "client"
          ? (raw) => {
              const result = parse(raw) as Record<string, unknown> | null;
              // An answer the admission refuses (another protocol version) leaves the capabilities in effect as they
              // were.
              this.admission?.initializeResult?.(result);
              const capabilities = result !== null && typeof result === "object" ? result[field] : undefined;
              this.peerCapabilities =
                capabilities !== null && typeof capabilities === "object"
                  ? (capabilities as Record<string, unknown>)
                  : {};
              return result;
            }
          : parse;
      this.parsers.set(info.method, parser);
    }
    return parser as (raw: unknown) => T;
  }

  private dispatchRequest(method: string, params: unknown, context: IncomingRequestContext): MaybePromise<unknown> {
    if (this.admission !== undefined) {
      const held = this.admission.request(method, context.id);
      if (held !== undefined) return whenReleased(held, () => this.routeRequest(method, params, context));
    }
    return this.routeRequest(method, params, context);
  }

  private routeRequest(method: string, params: unknown, context: IncomingRequestContext): MaybePromise<unknown> {
    const route = this.routes.requests.get(method) ?? this.routes.fallbackRequest;
    if (route === undefined) throw RequestError.methodNotFound(method);
    if (this.requireInitialize && !this.initialized && method !== "initialize") {
      // The official SDK 2.4.0's words, so clients matching on them keep working.
      throw RequestError.invalidRequest(undefined, `ACP connection must be initialized before '${method}'`);
    }
    return this.runRequest(route, this.index.here.requests.get(method), method, params, context);
  }

  private runRequest(
    route: RequestRoute,
    info: MethodInfo | undefined,
    method: string,
    params: unknown,
    context: IncomingRequestContext,
  ) {
    if (info?.method === "initialize" && this.side === "agent" && this.admission?.initializeFailed !== undefined) {
      return this.runInitialize(route, info, method, params, context, this.admission);
    }
    return this.runHandler(route, info, method, params, context);
  }

  private runHandler(
    route: RequestRoute,
    info: MethodInfo | undefined,
    method: string,
    params: unknown,
    context: IncomingRequestContext,
  ) {
    const parsed = parseIncoming(this.flavor.schemas, route.parse, info, params);
    if (info?.method === "initialize" && this.side === "agent") {
      const capabilities = (parsed as Record<string, unknown>)[this.flavor.capabilitiesField.request];
      this.peerCapabilities = (capabilities !== null && typeof capabilities === "object" ? capabilities : {}) as Record<
        string,
        unknown
      >;
    }
    const result = route.handler(parsed, context, method);
    if (info?.result === undefined) return result;
    if (result !== null && typeof result === "object" && typeof (result as Promise<unknown>).then === "function") {
      return (result as Promise<unknown>).then((value) => this.answered(info, parsed, value));
    }
    return this.answered(info, parsed, result);
  }

  /** The checked result of a handler, about to be sent (an admission hears this side's answer to `initialize`). */
  private answered(info: MethodInfo, parsed: unknown, value: unknown): unknown {
    const checked = this.checkResult(info, value);
    if (info.method === "initialize") this.admission?.initializeAnswered?.(parsed, checked);
    return checked;
  }

  /**
   * `initialize` under an admission that follows its outcome: a failure (thrown or rejected) is reported to it, and
   * the peer's capabilities go back to those of the exchange still in effect (none before the first).
   */
  private runInitialize(
    route: RequestRoute,
    info: MethodInfo,
    method: string,
    params: unknown,
    context: IncomingRequestContext,
    admission: Admission,
  ) {
    const previousCapabilities = this.peerCapabilities;
    const failed = (error: unknown): never => {
      this.peerCapabilities = previousCapabilities;
      admission.initializeFailed!(error);
      throw error;
    };
    let result: unknown;
    try {
      result = this.runHandler(route, info, method, params, context);
    } catch (error) {
      return failed(error);
    }
    if (result !== null && typeof result === "object" && typeof (result as Promise<unknown>).then === "function") {
      return (result as Promise<unknown>).then(undefined, failed);
    }
    return result;
  }

  private checkResult(info: MethodInfo, value: unknown): unknown {
    const result = value === undefined || value === null ? EMPTY_OBJECT_RESULT() : value;
    if (info.method === "initialize") this.initialized = true;
    if (this.outgoing === "off") return result;
    const schema = this.flavor.schemas[info.result!]!;
    if (!schema.is(result)) {
      const issues = schema.check(result);
      if (this.outgoing === "warn") {
        this.reports.report("answered", info, info.result!, issues);
        return result;
      }
      const error = new SchemaValidationError(info.result!, issues);
      this.logger.error(`the ${info.method} handler returned an invalid result; answered -32603 instead`, {
        detail: error.message,
      });
      throw RequestError.internalError(undefined, `this side produced an invalid ${info.method} result`);
    }
    return result;
  }

  private dispatchNotification(method: string, params: unknown): MaybePromise<void> {
    if (this.admission !== undefined) {
      const admitted = this.admission.notification(method);
      if (admitted === false) {
        this.logger.debug("ignored a notification the protocol's lifecycle does not admit now", { method });
        return;
      }
      if (admitted !== true)
        return whenReleased(admitted, (yes) => (yes ? this.routeNotification(method, params) : undefined));
    }
    return this.routeNotification(method, params);
  }

  private routeNotification(method: string, params: unknown): MaybePromise<void> {
    const route = this.routes.notifications.get(method) ?? this.routes.fallbackNotification;
    if (route === undefined) {
      this.logger.debug("ignored a notification with no handler", { method });
      return;
    }
    let parsed: unknown;
    try {
      parsed = parseIncoming(this.flavor.schemas, route.parse, this.index.here.notifications.get(method), params);
    } catch (error) {
      this.logger.warn("ignored an invalid notification", {
        method,
        detail: error instanceof Error ? error.message : String(error),
      });
      return;
    }
    return route.handler(parsed, method);
  }
}
