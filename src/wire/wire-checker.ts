/**
 * The rule engine: feed it every frame of one conversation, in wire order, from whichever side wrote it; it
 * classifies the frame, updates the conversation state, runs each rule's state machine, and reports findings as
 * they happen (`onFinding`) and at the end (`end()`).
 */
import type { ProtocolFlavor } from "../acp/flavor.js";
import { stableFlavor } from "../acp/flavors.js";
import { now } from "../jsonrpc/tap.js";
import { Conversation, type ConversationView } from "./conversation.js";
import type { Side, WireEvent, WireFrame } from "./events.js";
import { ALL_RULES } from "./rules/index.js";
import type { Finding, Rule, RuleState } from "./rules/types.js";

/** Options of a `WireChecker`. */
export interface WireCheckerOptions {
  /**
   * The schema frames are checked against. Default: stable ACP v1 (methods only the unstable schema has are checked
   * against it). A conversation whose `initialize` settles on protocol v2 (draft) is checked against v2's schema,
   * by the rules that hold in v2.
   */
  flavor?: ProtocolFlavor;
  /** The rules to run. Default: `ALL_RULES`. */
  rules?: readonly Rule[];
  /** Whose behaviour to judge: findings about the other side are dropped. Default: both. */
  judge?: readonly Side[];
  /** Called with each finding as soon as it is found. It must not throw. */
  onFinding?: (finding: Finding) => void;
}

/** Runs conformance rules over one conversation. */
export class WireChecker {
  readonly conversation: ConversationView;
  /** Every finding so far, in the order found. */
  readonly findings: Finding[] = [];
  private readonly state: Conversation;
  private readonly running: Array<{ rule: Rule; state: RuleState }>;
  private readonly judged: ReadonlySet<Side>;
  private readonly onFinding: ((finding: Finding) => void) | undefined;
  private ended = false;

  constructor(options: WireCheckerOptions = {}) {
    const flavor = options.flavor ?? stableFlavor;
    this.state = new Conversation(flavor);
    this.conversation = this.state;
    this.judged = new Set(options.judge ?? ["agent", "client"]);
    this.onFinding = options.onFinding;
    const rules = (options.rules ?? ALL_RULES).filter((rule) => rule.judges.some((side) => this.judged.has(side)));
    this.running = rules.map((rule) => ({
      rule,
      state: rule.create({
        conversation: this.state,
        report: (found) => {
          if (!this.judged.has(found.side)) return;
          const finding: Finding = {
            rule: rule.id,
            spec: rule.spec,
            severity: found.severity ?? rule.severity,
            side: found.side,
            message: found.message,
            ...(found.event ? { event: found.event } : {}),
            ...(found.path ? { path: found.path } : {}),
          };
          this.findings.push(finding);
          this.onFinding?.(finding);
        },
      }),
    }));
  }

  /** One frame written by `from`. Returns its classified event. */
  frame(from: Side, frame: WireFrame, time: number = now()): WireEvent {
    const event = this.state.observe(from, frame, time);
    const version = this.state.version;
    for (const { rule, state } of this.running) if ((rule.versions ?? [1]).includes(version)) state.onEvent(event);
    return event;
  }

  /** One parsed JSON message written by `from`. */
  message(from: Side, value: unknown, time?: number): WireEvent {
    return this.frame(from, { kind: "message", value }, time);
  }

  /** The conversation is over: runs the rules' end checks (once) and returns every finding. */
  end(): Finding[] {
    if (!this.ended) {
      this.ended = true;
      for (const { state } of this.running) state.onEnd?.();
    }
    return this.findings;
  }
}
