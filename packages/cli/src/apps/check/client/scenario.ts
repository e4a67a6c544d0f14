/**
 * An `acp check client` scenario: a stable id, a spec link, how its scripted agent and relay behave, and a script
 * that drives the conversation as the agent through a `ClientScenarioContext`. Scripts return a note on success and
 * throw `CheckFailed`, `NotExercised` or `Skipped`; the runner ends the turn, lets the client exit, and adds the rule
 * findings about the client.
 */
import { hasCapability } from "@acpkit/sdk";
import type { ExitStatus } from "@acpkit/sdk/node";
import { NotExercised, Skipped } from "../results.js";
import type { ClientRun, ClientTarget, RelayBehaviour } from "./client-run.js";
import type { PromptTurn, ScriptedAgent, ScriptedAgentOptions } from "./scripted-agent.js";

export interface ClientScenario {
  id: string;
  title: string;
  spec: string;
  relay?: RelayBehaviour;
  agent?: ScriptedAgentOptions | ((ctx: { markers: Record<string, string> }) => ScriptedAgentOptions);
  run(ctx: ClientScenarioContext): Promise<string | void>;
}

export class ClientScenarioContext {
  readonly warnings: string[] = [];
  readonly measurements: Record<string, number> = {};
  /** Random texts a scenario looks for in the client's output. */
  readonly markers: Record<string, string> = {};

  constructor(
    readonly scenario: string,
    readonly target: ClientTarget,
    /** Set by the runner before `run`. */
    public run: ClientRun | undefined,
    /** A directory outside the session's roots, holding `secret.txt`. */
    readonly outside: string,
  ) {}

  get client(): ClientRun {
    return this.run!;
  }

  /** A fresh random marker, remembered under `name`. */
  marker(name: string): string {
    return (this.markers[name] ??= `acp-check-${name}-${Math.random().toString(36).slice(2, 10)}`);
  }

  /** The scripted agent once the client started it. */
  agent(): Promise<ScriptedAgent> {
    return this.client.waitForAgent();
  }

  /** The client's first prompt, once it came. */
  async turn(): Promise<PromptTurn> {
    const agent = await this.agent();
    return agent.nextPrompt(this.target.startupTimeoutMs + this.target.turnTimeoutMs);
  }

  /** Skips the scenario unless the client advertised a capability. */
  requireClient(agent: ScriptedAgent, path: readonly string[]): void {
    if (!hasCapability(agent.clientCapabilities, path))
      throw new Skipped(`the client does not advertise clientCapabilities.${path.join(".")}`);
  }

  /** Whether the client printed `text` on stdout. */
  shows(text: string): boolean {
    return this.client.stdout.includes(text);
  }

  /** Sends the cancel signal and waits for the client's session/cancel; not exercised if it does not come. */
  async cancelFromClient(agent: ScriptedAgent, turn: PromptTurn): Promise<void> {
    const since = agent.peer.events.length;
    this.client.signal(this.target.cancelSignal);
    const cancel = await agent.peer
      .waitFor(
        (e) => e.method === "session/cancel" && (e.params as { sessionId?: unknown }).sessionId === turn.sessionId,
        { what: "session/cancel", timeoutMs: 5000, since },
      )
      .catch(() => undefined);
    if (!cancel)
      throw new NotExercised(
        `the client did not send session/cancel within 5 s of ${this.target.cancelSignal} (give the signal ` +
          `that makes it cancel with --cancel-signal)`,
      );
  }

  /** Answers the turn, ends the client's stdin, and waits (the turn timeout) for the client to exit. */
  async finish(agent: ScriptedAgent, turn: PromptTurn, stopReason = "end_turn"): Promise<ExitStatus | undefined> {
    agent.end(turn, stopReason);
    this.client.closeStdin();
    return this.client.exitWithin(this.target.turnTimeoutMs);
  }

  warn(text: string): void {
    if (!this.warnings.includes(text)) this.warnings.push(text);
  }

  measure(name: string, value: number): void {
    this.measurements[name] = Math.round(value * 10) / 10;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
