/**
 * The shared state of one conversation, as the rule engine follows it: classifies each frame into a `WireEvent`,
 * links responses to the requests they answer, and keeps what several rules need (each side's `initialize`
 * capabilities, each session's roots). Rules keep their own state; this holds only what is common to them.
 */
import type { ProtocolFlavor } from "../acp/flavor.js";
import { classify } from "../jsonrpc/envelope.js";
import { isRecord, type JsonRpcId } from "../jsonrpc/messages.js";
import type { MethodEntry } from "../protocol/index.js";
import type { Side, WireEvent, WireFrame } from "./events.js";

/** Pending requests of one sender, by id (ids are compared by type and value: `1` and `"1"` differ). */
type Pending = Map<string, WireEvent>;

const key = (id: JsonRpcId) => (typeof id === "string" ? `s${id}` : `n${String(id)}`);

/** What a conversation knows, for rules to read. */
export interface ConversationView {
  readonly flavor: ProtocolFlavor;
  /** `clientCapabilities` of the initialize request / `agentCapabilities` of its response, once seen. */
  capabilities(side: Side): unknown;
  /** True once the initialize request was answered with a result. */
  readonly initialized: boolean;
  /** The roots of a session (its `cwd` and `additionalDirectories`), once the client named them. */
  rootsOf(sessionId: string): readonly string[] | undefined;
  /** The method-table row of a method, from the flavor's table (falling back to the unstable one). */
  entryOf(method: string): MethodEntry | undefined;
  /** Requests `side` sent that are not answered yet. */
  pending(side: Side): Iterable<WireEvent>;
}

export class Conversation implements ConversationView {
  private index = 0;
  private readonly pendingBy: Record<Side, Pending> = { agent: new Map(), client: new Map() };
  /** Ids already answered, per requester: a second answer is a duplicate. */
  private readonly answered: Record<Side, Set<string>> = { agent: new Set(), client: new Set() };
  private readonly caps: Record<Side, unknown> = { agent: undefined, client: undefined };
  /** Frames each side sent that were not messages and are owed an error reply (by id; `null` for unparsable JSON). */
  private readonly owedErrors: Record<Side, string[]> = { agent: [], client: [] };
  private readonly roots = new Map<string, string[]>();
  private readonly entries: Map<string, MethodEntry>;
  initialized = false;

  constructor(
    readonly flavor: ProtocolFlavor,
    fallbackMethods: readonly MethodEntry[] = [],
  ) {
    this.entries = new Map();
    for (const entry of fallbackMethods) this.entries.set(entry.method, entry);
    for (const entry of flavor.methods) this.entries.set(entry.method, entry);
  }

  capabilities(side: Side): unknown {
    return this.caps[side];
  }

  rootsOf(sessionId: string): readonly string[] | undefined {
    return this.roots.get(sessionId);
  }

  entryOf(method: string): MethodEntry | undefined {
    return this.entries.get(method);
  }

  pending(side: Side): Iterable<WireEvent> {
    return this.pendingBy[side].values();
  }

  /** Classifies one frame and updates the shared state. */
  observe(from: Side, frame: WireFrame, time: number): WireEvent {
    const index = this.index++;
    if (frame.kind === "unparsable") {
      if (/^\s*[[{]/.test(frame.line)) this.owe(from, null);
      return { index, time, from, type: "unparsable", line: frame.line };
    }
    if (frame.kind === "oversized") return { index, time, from, type: "oversized", line: frame.head, bytes: frame.bytes };
    const value = frame.value;
    if (isRecord(value) && !("id" in value) && !("method" in value) && ("result" in value || "error" in value)) {
      this.owe(from, null);
      return { index, time, from, type: "invalid", value, reason: 'a response without "id": every JSON-RPC 2.0 response carries the id of the request it answers (null when that id could not be read), and a notification gets no response at all' };
    }
    const envelope = classify(value);
    switch (envelope.kind) {
      case "invalid":
        this.owe(from, envelope.id);
        return { index, time, from, type: "invalid", value, reason: envelope.reason, id: envelope.id };
      case "request": {
        const event: WireEvent = { index, time, from, type: "request", value, method: envelope.method, id: envelope.id, params: envelope.params, entry: this.entryOf(envelope.method) };
        this.pendingBy[from].set(key(envelope.id), event);
        return event;
      }
      case "notification":
        return { index, time, from, type: "notification", value, method: envelope.method, params: envelope.params, entry: this.entryOf(envelope.method) };
      case "response": {
        const requester: Side = from === "agent" ? "client" : "agent";
        const k = key(envelope.id);
        const request = this.pendingBy[requester].get(k);
        const record = envelope.value;
        if (request === undefined && "error" in record) {
          const owed = this.owedErrors[requester].indexOf(k);
          if (owed !== -1) {
            this.owedErrors[requester].splice(owed, 1);
            return { index, time, from, type: "response", value, id: envelope.id, error: record.error, answersInvalid: true };
          }
        }
        const duplicate = request === undefined && this.answered[requester].has(k);
        if (request) {
          this.pendingBy[requester].delete(k);
          this.answered[requester].add(k);
        }
        const event: WireEvent = {
          index,
          time,
          from,
          type: "response",
          value,
          id: envelope.id,
          ...(request ? { request, method: request.method, entry: request.entry } : {}),
          ...("error" in record ? { error: record.error } : { result: record.result }),
          ...(duplicate ? { duplicate } : {}),
        };
        this.learn(event);
        return event;
      }
    }
  }

  /** An invalid frame of `from` may be answered with an error carrying `id` (at most 64 kept). */
  private owe(from: Side, id: JsonRpcId): void {
    const owed = this.owedErrors[from];
    owed.push(key(id));
    if (owed.length > 64) owed.shift();
  }

  /** Capabilities from initialize; roots from session setup. */
  private learn(response: WireEvent): void {
    const request = response.request;
    if (!request || response.error !== undefined) return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const result = (response.result ?? {}) as Record<string, unknown>;
    switch (request.method) {
      case "initialize":
        this.caps.client = params.clientCapabilities;
        this.caps.agent = result.agentCapabilities;
        this.initialized = true;
        return;
      case "session/new":
      case "session/load":
      case "session/resume":
      case "session/fork": {
        const sessionId = request.method === "session/load" || request.method === "session/resume" ? params.sessionId : result.sessionId;
        if (typeof sessionId !== "string") return;
        const roots = [params.cwd, ...(Array.isArray(params.additionalDirectories) ? params.additionalDirectories : [])].filter((r): r is string => typeof r === "string");
        this.roots.set(sessionId, roots);
        return;
      }
    }
  }
}
