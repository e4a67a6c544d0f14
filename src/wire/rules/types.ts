/**
 * The shape of a conformance rule: an id, the spec section it enforces, a description, and a small state machine
 * over the frames of one conversation that reports findings. Rules are data: the engine runs whichever list it is
 * given, and `acp check`, `acp tap` and the library all share `ALL_RULES`.
 */
import type { ConversationView } from "../conversation.js";
import type { Side, WireEvent } from "../events.js";

/** `error`: a MUST of the spec is broken. `warning`: a SHOULD, or something that is only suspicious. */
export type Severity = "error" | "warning";

/** One problem found on the wire. */
export interface Finding {
  /** The rule that found it, e.g. `prompt.update-after-response`. */
  readonly rule: string;
  readonly severity: Severity;
  /** The side whose behaviour is at fault. */
  readonly side: Side;
  /** What was wrong and what the spec requires, in one or two sentences. */
  readonly message: string;
  /** The spec section, a URL. */
  readonly spec: string;
  /** The frame at fault (absent for findings about the end of a conversation). */
  readonly event?: WireEvent;
  /** JSON path inside the frame, e.g. `$.params.update.content.type`. */
  readonly path?: string;
}

/** What a rule's state machine is handed. */
export interface RuleContext {
  readonly conversation: ConversationView;
  /** Reports a finding for this rule (`rule`, `spec` and the default severity are filled in). */
  report(finding: { side: Side; message: string; event?: WireEvent; path?: string; severity?: Severity }): void;
}

/** The running state of one rule over one conversation. */
export interface RuleState {
  /** Called for every frame, in wire order, after the conversation state was updated. */
  onEvent(event: WireEvent): void;
  /** The conversation ended (both sides closed): report what was left undone. */
  onEnd?(): void;
}

/** A conformance rule. */
export interface Rule {
  /** Stable id, e.g. `cancel.stop-reason`. */
  readonly id: string;
  /** Link to the spec section it checks. */
  readonly spec: string;
  /** One line: what the rule requires. */
  readonly description: string;
  /** Default severity of its findings. */
  readonly severity: Severity;
  /** Whose behaviour it judges. */
  readonly judges: readonly Side[];
  /**
   * The protocol versions it holds in (default: v1 only). Protocol v2 (draft) redesigned the prompt turn (its
   * response is an acknowledgement, updates follow it) and dropped the client's file system and terminals.
   */
  readonly versions?: readonly (1 | 2)[];
  /** A fresh state machine for one conversation. */
  create(context: RuleContext): RuleState;
}

export const SPEC = "https://agentclientprotocol.com/protocol";
