/**
 * What a reconnecting client must remember to pick up where it was: the application's `initialize` (to send it
 * again), its last successful `authenticate`, the sessions it has open (with the `cwd` and MCP servers to reattach
 * them with), and its requests still waiting for a response (which a dropped link loses). Learned by watching
 * the messages go by; no I/O.
 */
import { isRecord, type AnyMessage, type JsonRpcId } from "../../jsonrpc/messages.js";

/** A session the client has open, and how to attach it again. */
export interface KnownSession {
  sessionId: string;
  cwd: string;
  mcpServers: unknown[];
  additionalDirectories?: unknown;
}

/** Methods whose success makes a session known (the id is in the result for new and fork, in the params otherwise). */
const OPENING = new Set(["session/new", "session/fork", "session/load", "session/resume"]);
/** Methods whose success ends a session. */
const ENDING = new Set(["session/close", "session/delete"]);

interface Outstanding {
  id: JsonRpcId;
  method: string;
  params: unknown;
}

function key(id: unknown): string | undefined {
  if (typeof id === "string") return `s:${id}`;
  if (typeof id === "number") return `n:${id}`;
  return undefined;
}

/** See the file comment. */
export class SessionLedger {
  /** The params of the application's `initialize`, once sent. */
  initializeParams: unknown;
  /** The params of the last `authenticate` that succeeded. */
  authenticateParams: unknown;
  readonly sessions = new Map<string, KnownSession>();
  readonly #outstanding = new Map<string, Outstanding>();

  /** The application sent `message`. */
  sent(message: AnyMessage): void {
    if (!("method" in message) || !("id" in message)) return;
    const k = key(message.id);
    if (k === undefined) return;
    if (message.method === "initialize") this.initializeParams = message.params;
    this.#outstanding.set(k, { id: message.id, method: message.method, params: message.params });
  }

  /** `message` arrived for the application. */
  received(message: unknown): void {
    if (!isRecord(message) || "method" in message || !("id" in message)) return;
    const k = key(message.id);
    const request = k === undefined ? undefined : this.#outstanding.get(k);
    if (request === undefined) return;
    this.#outstanding.delete(k!);
    if (!("result" in message)) return;
    const params = isRecord(request.params) ? request.params : {};
    const result = isRecord(message.result) ? message.result : {};
    if (request.method === "authenticate") this.authenticateParams = request.params;
    if (OPENING.has(request.method)) {
      const sessionId =
        typeof result.sessionId === "string"
          ? result.sessionId
          : typeof params.sessionId === "string"
            ? params.sessionId
            : undefined;
      if (sessionId !== undefined && typeof params.cwd === "string") {
        this.sessions.set(sessionId, {
          sessionId,
          cwd: params.cwd,
          mcpServers: Array.isArray(params.mcpServers) ? params.mcpServers : [],
          ...(params.additionalDirectories === undefined
            ? {}
            : { additionalDirectories: params.additionalDirectories }),
        });
      }
    }
    if (ENDING.has(request.method) && typeof params.sessionId === "string") this.sessions.delete(params.sessionId);
  }

  /** The ids of the application's requests still waiting, forgotten now (the link that carried them dropped). */
  takeOutstanding(): JsonRpcId[] {
    const ids = [...this.#outstanding.values()].map((request) => request.id);
    this.#outstanding.clear();
    return ids;
  }

  /** The methods of the requests still waiting, for events. */
  outstandingMethods(): string[] {
    return [...this.#outstanding.values()].map((request) => request.method);
  }

  /** The params to attach `session` again with `session/load` or `session/resume`. */
  static attachParams(session: KnownSession): Record<string, unknown> {
    return {
      sessionId: session.sessionId,
      cwd: session.cwd,
      mcpServers: session.mcpServers,
      ...(session.additionalDirectories === undefined ? {} : { additionalDirectories: session.additionalDirectories }),
    };
  }
}
