/**
 * The agent plan: a list of entries the client shows as the agent's to-do list. Every change sends the WHOLE plan
 * (`sessionUpdate: "plan"`), as the spec requires: "the agent MUST send a complete list of all entries with their
 * current status; the client replaces the entire plan with each update".
 * @see https://agentclientprotocol.com/protocol/agent-plan
 */
import type { PlanEntry, PlanEntryPriority, PlanEntryStatus } from "../../protocol/index.js";
import type { UpdateSink } from "./tool-calls.js";

/** Keeps a plan and sends it whole on each change. Each method returns the send's promise. */
export class PlanTracker {
  #entries: PlanEntry[] = [];
  readonly #sink: UpdateSink;

  constructor(sink: UpdateSink) {
    this.#sink = sink;
  }

  /** A copy of the current entries. */
  get entries(): PlanEntry[] {
    return this.#entries.map((entry) => ({ ...entry }));
  }

  /** Replaces the plan. Strings become `pending`, `medium` priority entries. */
  set(entries: ReadonlyArray<PlanEntry | string>): Promise<void> {
    this.#entries = entries.map((entry) =>
      typeof entry === "string" ? { content: entry, priority: "medium", status: "pending" } : { ...entry },
    );
    return this.#send();
  }

  /** Adds an entry at the end. */
  add(content: string, priority: PlanEntryPriority = "medium", status: PlanEntryStatus = "pending"): Promise<void> {
    this.#entries.push({ content, priority, status });
    return this.#send();
  }

  /** Sets the status of the entry at `index`. */
  setStatus(index: number, status: PlanEntryStatus): Promise<void> {
    this.#at(index).status = status;
    return this.#send();
  }

  /** Marks entry `index` in progress. */
  start(index: number): Promise<void> {
    return this.setStatus(index, "in_progress");
  }

  /** Marks entry `index` completed. */
  complete(index: number): Promise<void> {
    return this.setStatus(index, "completed");
  }

  /** Removes the entry at `index`. */
  remove(index: number): Promise<void> {
    this.#at(index);
    this.#entries.splice(index, 1);
    return this.#send();
  }

  #at(index: number): PlanEntry {
    const entry = this.#entries[index];
    if (entry === undefined)
      throw new RangeError(`no plan entry at index ${index} (the plan has ${this.#entries.length})`);
    return entry;
  }

  #send(): Promise<void> {
    return this.#sink({ sessionUpdate: "plan", entries: this.entries });
  }
}
