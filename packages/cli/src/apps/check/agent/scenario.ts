/**
 * An `acp check agent` scenario: a stable id, a spec link, the capability it needs, and a script that drives one or
 * more fresh agent processes through a `AgentScenarioContext`. A script returns a note on success and throws
 * `CheckFailed`, `NotExercised` or `Skipped` otherwise; the rule findings of its conversations are added by the
 * runner.
 */
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { NotExercised } from "../results.js";
import type { PromptBook } from "./prompts.js";
import { AgentProcess, type AgentTarget } from "./agent-process.js";

export interface AgentScenario {
  id: string;
  title: string;
  spec: string;
  /** A reason to skip, from the agent's initialize result (e.g. the capability is not advertised). */
  skip?: (init: Record<string, unknown>) => string | undefined;
  run(ctx: AgentScenarioContext): Promise<string | void>;
}

/** What a scenario script gets. */
export class AgentScenarioContext {
  readonly warnings: string[] = [];
  readonly measurements: Record<string, number> = {};
  readonly processes: AgentProcess[] = [];
  private dirs = 0;

  constructor(
    readonly scenario: string,
    readonly target: AgentTarget,
    readonly prompts: PromptBook,
    /** A fresh directory for this scenario (real path): the sessions' cwd. */
    readonly workdir: string,
    /** Environment that gives this scenario's agents their own HOME and data directories (see `isolatedHome`). */
    readonly isolation: Readonly<Record<string, string>> = {},
  ) {}

  /** Launches a fresh agent process (stopped by the runner at the end of the scenario). */
  async launch(): Promise<AgentProcess> {
    const agent = await AgentProcess.launch(this.target, this.isolation);
    this.processes.push(agent);
    return agent;
  }

  /** Launches and initializes; logs in with `--auth` unless `login` is false. */
  async start(options: { login?: boolean } = {}): Promise<AgentProcess> {
    const agent = await this.launch();
    await agent.initialize();
    if (this.target.auth !== undefined && options.login !== false) await agent.authenticate(this.target.auth);
    return agent;
  }

  /** Launches, initializes and opens a session in `cwd` (default: the scenario's directory). */
  async session(cwd = this.workdir): Promise<{ agent: AgentProcess; sessionId: string }> {
    const agent = await this.start();
    return { agent, sessionId: await agent.newSession(cwd) };
  }

  /** A new subdirectory of the scenario's directory (real path). */
  subdir(name = `dir${++this.dirs}`): string {
    const dir = join(this.workdir, name);
    mkdirSync(dir, { recursive: true });
    return realpathSync(dir);
  }

  /** This scenario's prompt (or another's), filled in; not exercised when `--prompts` left it out. */
  prompt(values: Record<string, string | number> = {}, scenario = this.scenario): string {
    const text = this.prompts.text(scenario, values);
    if (text === undefined) throw new NotExercised(`no prompt for ${scenario} (set to null in --prompts)`);
    return text;
  }

  /** Hint for a "not exercised" message: how to make the agent do it. */
  hint(scenario = this.scenario): string {
    return this.prompts.isDefault(scenario)
      ? ` (asked with the reference agent's wording ${JSON.stringify(this.prompts.text(scenario))}; give this ` +
          `agent's wording with --prompts FILE)`
      : "";
  }

  warn(text: string): void {
    if (!this.warnings.includes(text)) this.warnings.push(text);
  }

  measure(name: string, value: number): void {
    this.measurements[name] = Math.round(value * 10) / 10;
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** How long the agent has to react to a cancel before the scenario fails. */
export const CANCEL_DEADLINE_MS = 10_000;
/** How long a turn that should take its time must still be running after its first update before it is cancelled. */
export const SETTLE_MS = 300;
/** How long the checker keeps listening after a response, for late updates. */
export const LATE_UPDATE_GRACE_MS = 300;
