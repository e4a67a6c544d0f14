/**
 * `AgentProtocolRouter`: serves each connection with the implementation of the protocol version its client asked
 * for, so one agent speaks ACP v1 and the v2 draft side by side (a drop-in for the official SDK 2.4.0's router).
 *
 * Contracts (as the official router's):
 * - Messages are read until a valid `initialize` request arrives. Before it: notifications and responses are
 *   ignored, other requests get -32600, a JSON array (a batch, which ACP does not use) gets one -32600 with
 *   `id: null`, and an `initialize` that cannot be served (a malformed or unsupported version) gets an error. None
 *   of these closes the connection: the client may send `initialize` again.
 * - Selection: with v2 configured, a request for 2 or newer goes to v2; otherwise v1 takes versions from 1 up (a
 *   v1-only router keeps v1's fallback and takes any version). The initialize is parsed and normalized for the
 *   selected version (./protocol-initialize.ts), and refused (-32602, the connection not routed) when params of
 *   exactly that version do not parse; everything after it is forwarded unchanged, and the connection is never
 *   re-routed.
 * - On a v2 route the first `initialize` must have a string or integer id.
 * - `closed` resolves once the routed connection ends (the implementation's closes, or the client's input ends),
 *   or when the client leaves before `initialize`.
 *
 * acpkit routes at the message-link level: an acpkit transport keeps its fast path through the router.
 */
import {
  RequestError,
  defaultLogger,
  isNotificationMessage,
  isRecord,
  isRequestMessage,
  type AnyMessage,
  type JsonRpcId,
  type LinkReceiver,
  type Logger,
  type MessageLink,
  type Stream,
} from "../jsonrpc/index.js";
import { streamFromLink, type LinkControl } from "../transports/link-streams.js";
import { linkFromStream } from "../transports/stream-link.js";
import type { AgentConnectionLifecycle, AgentConnectOptions, AgentConnector } from "../acp/agent-connector.js";
import { isV2RequestId, requestedVersion } from "../acp/v2/admission.js";
import { rewriteInitializeParams } from "./protocol-initialize.js";

type Decision = { reject?: { id: JsonRpcId; error: RequestError } } | { selected: 1 | 2; initialize: AnyMessage };

/** Routes each client connection to the v1 or the v2 implementation of an agent. */
export class AgentProtocolRouter implements AgentConnector {
  private v1: AgentConnector | undefined;
  private v2: AgentConnector | undefined;
  private readonly logger: Logger;

  /** `logger` (acpkit's extra) hears an implementation that fails to connect; default: stderr. */
  constructor(options: { logger?: Logger } = {}) {
    this.logger = options.logger ?? defaultLogger;
  }

  /** Configures the ACP v1 implementation (an acpkit or official `AgentApp`, any `AgentConnector`). */
  withV1(agent: AgentConnector): this {
    this.v1 = agent;
    return this;
  }

  /** Configures the protocol v2 (draft) implementation. */
  withV2(agent: AgentConnector): this {
    this.v2 = agent;
    return this;
  }

  /**
   * Routes one connection. With `deferConnectHandlers`, the selected app's `onConnect` handlers run when
   * `startConnectHandlers()` is called (a remote server does so after `initialize` was answered).
   */
  connect(
    stream: Stream,
    options: AgentConnectOptions = {},
  ): AgentConnectionLifecycle & { readonly closed: Promise<void> } {
    const lifecycle = new RoutedConnection(options.deferConnectHandlers !== true);
    const inner = linkFromStream(stream) as MessageLink & Partial<LinkControl>;
    const routed = new RoutedLink(inner);
    let decided = false;
    inner.start({
      message: (value, rawId) => {
        if (decided) return routed.deliver((r) => r.message(value, rawId));
        const decision = this.decide(value);
        if (!("selected" in decision)) {
          if (decision.reject) reply(inner, decision.reject.id, decision.reject.error);
          return;
        }
        decided = true;
        routed.deliver((r) => r.message(decision.initialize));
        const failure = this.attach(decision.selected, routed, lifecycle, options);
        if (failure !== undefined) {
          // The client is told why, not left waiting; the connection ends.
          const detail = failure instanceof Error ? failure.message : String(failure);
          this.logger.error(`the ACP v${decision.selected} implementation failed to take the connection`, { detail });
          reply(
            inner,
            (decision.initialize as { id: JsonRpcId }).id,
            RequestError.internalError({ details: detail }, "the agent could not start"),
          );
          void inner.close();
        }
      },
      problem: (problem) => {
        if (decided) return routed.deliver((r) => r.problem(problem));
        if (problem.kind === "parse" && problem.looksLikeJson) reply(inner, null, RequestError.parseError());
      },
      closed: (cause) => {
        // The client's input ended: the routed connection ends with it (also for an implementation that returned no
        // lifecycle of its own to follow), as the official router's does.
        if (decided) routed.deliver((r) => r.closed(cause));
        else void inner.close();
        lifecycle.finish();
      },
    });
    return lifecycle;
  }

  /** Hands the connection to the selected implementation; returns what it threw, if it did. */
  private attach(
    selected: 1 | 2,
    routed: RoutedLink,
    lifecycle: RoutedConnection,
    options: AgentConnectOptions,
  ): unknown {
    const agent = selected === 2 ? this.v2 : this.v1;
    try {
      if (!agent) throw new Error(`no ACP v${selected} implementation is configured on this router`);
      lifecycle.attach(agent.connect(streamFromLink(routed), { ...options, deferConnectHandlers: true }));
      return undefined;
    } catch (error) {
      lifecycle.finish();
      return error ?? new Error("the implementation threw");
    }
  }

  /** What to do with a message that arrives before the connection is routed. */
  private decide(message: unknown): Decision {
    if (Array.isArray(message))
      return {
        reject: { id: null, error: RequestError.invalidRequest(undefined, "JSON-RPC batches are not supported") },
      };
    // Notifications and responses (anything shaped like one) before initialization are ignored: nobody waits for an
    // answer to them.
    if (isNotificationMessage(message) || isResponseShaped(message)) return {};
    if (!isRequestMessage(message))
      return {
        reject: {
          id: null,
          error: RequestError.invalidRequest(undefined, "first ACP message must be an initialize request"),
        },
      };
    const id = message.id;
    if (message.method !== "initialize")
      return { reject: { id, error: RequestError.invalidRequest(undefined, "first ACP request must be initialize") } };
    let requested: number;
    try {
      requested = requestedVersion(message.params);
    } catch (error) {
      return { reject: { id, error: error as RequestError } };
    }
    const params = message.params as Record<string, unknown>;
    const selected = this.select(requested);
    if (selected === undefined) {
      const supported = [...(this.v1 ? [1] : []), ...(this.v2 ? [2] : [])];
      return { reject: { id, error: RequestError.unsupportedProtocolVersion(requested, supported) } };
    }
    if (selected === 2 && !isV2RequestId(id)) {
      return {
        reject: {
          id: null,
          error: RequestError.invalidRequest(undefined, "ACP v2 request IDs must be strings or integers"),
        },
      };
    }
    try {
      return {
        selected,
        initialize: { ...message, params: rewriteInitializeParams(params, requested, selected) } as AnyMessage,
      };
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      const issues = (error as { issues?: unknown }).issues;
      return {
        reject: {
          id,
          error: RequestError.invalidParams(
            issues === undefined ? undefined : { issues },
            `invalid initialize params: ${detail}`,
          ),
        },
      };
    }
  }

  private select(requested: number): 1 | 2 | undefined {
    if (this.v1 && !this.v2) return 1;
    if (this.v2 && requested >= 2) return 2;
    if (this.v1 && requested >= 1) return 1;
    return undefined;
  }
}

/** Creates an empty router: add implementations with `withV1` and `withV2`. */
export function agentProtocolRouter(options: { logger?: Logger } = {}): AgentProtocolRouter {
  return new AgentProtocolRouter(options);
}

/** An object without `method` that has an `id`, a `result` or an `error`: a response, well-formed or not. */
function isResponseShaped(message: unknown): boolean {
  return isRecord(message) && !("method" in message) && ("id" in message || "result" in message || "error" in message);
}

function reply(link: MessageLink, id: JsonRpcId, error: RequestError): void {
  try {
    link.send({ jsonrpc: "2.0", id, error: error.toErrorResponse() });
  } catch {
    // The client went away; its next read (if any) ends the connection.
  }
}

/**
 * The link the selected implementation gets: the client's link, whose incoming messages (the initialize first)
 * are held until the implementation starts reading, then forwarded. What was held is handed over on a later
 * microtask, never from inside `start()`: an implementation starts its link while it is still being built (an
 * acpkit app registers its handlers after), and its `onConnect` handlers run before it handles a message.
 */
class RoutedLink implements MessageLink, Partial<LinkControl> {
  private receiver: LinkReceiver | undefined;
  /** Events waiting for the receiver; undefined once they were handed over and events pass straight through. */
  private held: Array<(receiver: LinkReceiver) => void> | undefined = [];

  constructor(private readonly inner: MessageLink & Partial<LinkControl>) {
    if (inner.pauseInput) this.pauseInput = () => inner.pauseInput!();
    if (inner.resumeInput) this.resumeInput = () => inner.resumeInput!();
    if (inner.stopInput) this.stopInput = () => inner.stopInput!();
    if (inner.closeOutput) this.closeOutput = () => inner.closeOutput!();
  }

  pauseInput?: () => void;
  resumeInput?: () => void;
  stopInput?: () => void;
  closeOutput?: () => Promise<void>;

  /** Hands one event to the implementation, or holds it until the implementation starts reading. */
  deliver(event: (receiver: LinkReceiver) => void): void {
    if (this.held === undefined) event(this.receiver!);
    else this.held.push(event);
  }

  start(receiver: LinkReceiver): void {
    if (this.receiver) throw new Error("a routed ACP connection is read by one implementation only");
    this.receiver = receiver;
    queueMicrotask(() => {
      // Events delivered while these are handed over queue behind them, in arrival order.
      for (let i = 0; i < this.held!.length; i++) this.held![i]!(receiver);
      this.held = undefined;
    });
  }

  send(message: AnyMessage, rawId?: string): void {
    this.inner.send(message, rawId);
  }

  drain(): Promise<void> {
    return this.inner.drain();
  }

  /**
   * The transport's message size limit, for the implementation (the agent toolkit refuses what it could not replay).
   */
  get maxMessageBytes(): number | undefined {
    return this.inner.maxMessageBytes;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** The lifecycle the router returns: follows the routed connection once there is one. */
class RoutedConnection implements AgentConnectionLifecycle {
  readonly closed: Promise<void>;
  private resolveClosed!: () => void;
  private finished = false;
  private startRequested: boolean;
  private started = false;
  private selected: AgentConnectionLifecycle | undefined;

  constructor(startConnectHandlers: boolean) {
    this.startRequested = startConnectHandlers;
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  startConnectHandlers(): void {
    this.startRequested = true;
    this.maybeStart();
  }

  attach(connection: unknown): void {
    if (typeof connection === "object" && connection !== null) this.selected = connection as AgentConnectionLifecycle;
    this.maybeStart();
    const closed = this.selected?.closed;
    if (closed)
      void closed.then(
        () => this.finish(),
        () => this.finish(),
      );
  }

  finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.resolveClosed();
  }

  private maybeStart(): void {
    if (!this.startRequested || this.started || !this.selected?.startConnectHandlers) return;
    this.started = true;
    this.selected.startConnectHandlers();
  }
}
