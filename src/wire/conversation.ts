/**
 * The shared state of one conversation, as the rule engine follows it: classifies each frame into a `WireEvent`,
 * links responses to the requests they answer, and keeps what several rules need (each side's `initialize`
 * capabilities, each session's roots). Rules keep their own state; this holds only what is common to them.
 */
import type { ProtocolFlavor } from "../acp/flavor.js";
import { unstableFlavor } from "../acp/flavors.js";
import { v2Flavor, v2UnstableFlavor } from "../acp/v2-flavors.js";
import { classify } from "../jsonrpc/envelope.js";
import { isRecord, type JsonRpcId } from "../jsonrpc/messages.js";
import type { MethodEntry } from "../protocol/index.js";
import type { Side, WireEvent, WireFrame } from "./events.js";

/** Pending requests of one sender, by id (ids are compared by type and value: `1` and `"1"` differ). */
type Pending = Map<string, WireEvent>;

const key = (id: JsonRpcId) => (typeof id === "string" ? `s${id}` : `n${String(id)}`);

/** What a conversation knows, for rules to read. */
export interface ConversationView {
  /** The schema the conversation is checked against: v1's (as configured) until an `initialize` settles on v2. */
  readonly flavor: ProtocolFlavor;
  /** The unstable schema of the same protocol version, for methods and fields only it has. */
  readonly fallbackFlavor: ProtocolFlavor;
  /** The protocol version of the conversation: 2 once a client asked for v2 and (if answered) the agent chose it. */
  readonly version: 1 | 2;
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
  private entries = new Map<string, MethodEntry>();
  initialized = false;
  flavor: ProtocolFlavor;
  fallbackFlavor: ProtocolFlavor = unstableFlavor;
  version: 1 | 2 = 1;

  constructor(private readonly v1Flavor: ProtocolFlavor) {
    this.flavor = v1Flavor;
    this.useFlavor(v1Flavor, unstableFlavor);
  }

  /**
   * Checks what follows against `flavor` (methods only `fallback` has, against it). Protocol v2 (draft) is followed
   * when a client asks for it in `initialize` (its request is v2's), and kept when the agent answers 2.
   */
  private useFlavor(flavor: ProtocolFlavor, fallback: ProtocolFlavor): void {
    this.flavor = flavor;
    this.fallbackFlavor = fallback;
    this.version = flavor.version;
    this.entries = new Map();
    for (const entry of fallback.methods) this.entries.set(entry.method, entry);
    for (const entry of flavor.methods) this.entries.set(entry.method, entry);
  }

  /** The version an `initialize` request or result names (2 for anything from 2 up). */
  private followVersion(value: unknown): void {
    const version = isRecord(value) ? value.protocolVersion : undefined;
    if (typeof version !== "number") return;
    if (version >= 2 && this.version !== 2)
      this.useFlavor(this.v1Flavor === unstableFlavor ? v2UnstableFlavor : v2Flavor, v2UnstableFlavor);
    else if (version < 2 && this.version !== 1) this.useFlavor(this.v1Flavor, unstableFlavor);
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
    if (frame.kind === "oversized")
      return { index, time, from, type: "oversized", line: frame.head, bytes: frame.bytes };
    const value = frame.value;
    if (isRecord(value) && !("id" in value) && !("method" in value) && ("result" in value || "error" in value)) {
      this.owe(from, null);
      return {
        index,
        time,
        from,
        type: "invalid",
        value,
        reason:
          'a response without "id": every JSON-RPC 2.0 response carries the id of the request it answers ' +
          "(null when that id could not be read), and a notification gets no response at all",
      };
    }
    const envelope = classify(value);
    switch (envelope.kind) {
      case "invalid":
        this.owe(from, envelope.id);
        return { index, time, from, type: "invalid", value, reason: envelope.reason, id: envelope.id };
      case "request": {
        if (envelope.method === "initialize" && !this.initialized) this.followVersion(envelope.params);
        const event: WireEvent = {
          index,
          time,
          from,
          type: "request",
          value,
          method: envelope.method,
          id: envelope.id,
          params: envelope.params,
          entry: this.entryOf(envelope.method),
        };
        this.pendingBy[from].set(key(envelope.id), event);
        return event;
      }
      case "notification":
        return {
          index,
          time,
          from,
          type: "notification",
          value,
          method: envelope.method,
          params: envelope.params,
          entry: this.entryOf(envelope.method),
        };
      case "response": {
        const requester: Side = from === "agent" ? "client" : "agent";
        const k = key(envelope.id);
        const request = this.pendingBy[requester].get(k);
        const record = envelope.value;
        if (request === undefined && "error" in record) {
          const owed = this.owedErrors[requester].indexOf(k);
          if (owed !== -1) {
            this.owedErrors[requester].splice(owed, 1);
            return {
              index,
              time,
              from,
              type: "response",
              value,
              id: envelope.id,
              error: record.error,
              answersInvalid: true,
            };
          }
        }
        const duplicate = request === undefined && this.answered[requester].has(k);
        // The agent's answer to initialize settles the version: a v1 agent answering a v2 client makes it v1 again.
        if (request?.method === "initialize" && "result" in record) this.followVersion(record.result);
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
        // v1: clientCapabilities / agentCapabilities; v2: capabilities on both sides.
        this.caps.client = params[this.flavor.capabilitiesField.request];
        this.caps.agent = result[this.flavor.capabilitiesField.result];
        this.initialized = true;
        return;
      case "session/new":
      case "session/load":
      case "session/resume":
      case "session/fork": {
        const sessionId =
          request.method === "session/load" || request.method === "session/resume"
            ? params.sessionId
            : result.sessionId;
        if (typeof sessionId !== "string") return;
        const roots = [
          params.cwd,
          ...(Array.isArray(params.additionalDirectories) ? params.additionalDirectories : []),
        ].filter((r): r is string => typeof r === "string");
        this.roots.set(sessionId, roots);
        return;
      }
    }
  }
}
