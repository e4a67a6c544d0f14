/**
 * Plays the client's side of a cassette against a live agent and reports where the agent's frames differ from the
 * recording. Each recorded client frame is sent once every agent frame recorded before it was received or declared
 * missing (barrier semantics). Volatile values (ids, times, paths under a moved cwd) are matched through a
 * `Correspondence`: the session id the live agent gives replaces the recorded one in what is sent next.
 *
 * Answers to the client's requests are matched by id; the agent's other frames by kind and method (a
 * `session/update` by its update kind), in order, so that one extra or missing frame is one divergence and shifts
 * nothing after it. A recorded frame is `missing` when an answer recorded after it arrives first, when the agent
 * closes, or when nothing comes in time; a live frame with no recorded counterpart is `unexpected`.
 */
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import type { Cassette, CassetteEntry } from "../cassette.js";
import type { WireEvent } from "../events.js";
import { WaitTimeoutError, type ScriptPeer } from "../script-peer.js";
import {
  body,
  delay,
  describeEntry,
  describeMessage,
  idKey,
  type Divergence,
  type ReplayOptions,
  type ReplayResult,
} from "./common.js";
import { Correspondence } from "./volatile.js";

/** Options of `replayClient`: those of any replay, and where the recorded cwd is now. */
export interface ReplayClientOptions extends ReplayOptions {
  /** The directory that stands for the recorded session cwd (paths under it are moved). Default: the recorded one. */
  cwd?: string;
}

/** Replays the client's side against the agent on the other end of `peer` (a `ScriptPeer` playing the client). */
export async function replayClient(
  cassette: Cassette,
  peer: ScriptPeer,
  options: ReplayClientOptions = {},
): Promise<ReplayResult> {
  if (peer.side !== "client")
    throw new TypeError('replayClient needs a ScriptPeer playing the client (side: "client")');
  return new ClientPlayer(cassette, peer, options).play();
}

class ClientPlayer {
  private readonly correspondence: Correspondence;
  private readonly agentIds = new Map<string, JsonRpcId>();
  /** Methods of the requests this side sent, by id. */
  private readonly sentMethods = new Map<string, string>();
  /** Ids of this side's requests whose answers were matched. */
  private readonly answered = new Set<string>();
  private readonly result: ReplayResult = { sent: 0, compared: 0, divergences: [], completed: false };
  /** Indexes of the agent's frames (answers aside) a recorded frame took. */
  private readonly consumed = new Set<number>();
  /** Indexes of the agent's frames reported as unexpected. */
  private readonly reported = new Set<number>();
  /** After one wait ran out, later waits are short: the agent is not following the recording. */
  private stalled = false;

  constructor(
    private readonly cassette: Cassette,
    private readonly peer: ScriptPeer,
    private readonly options: ReplayClientOptions,
  ) {
    this.correspondence = new Correspondence(new Set(options.ignore ?? []));
    const recordedCwd = firstCwd(cassette);
    if (recordedCwd !== undefined && options.cwd !== undefined) this.correspondence.mapPrefix(recordedCwd, options.cwd);
  }

  async play(): Promise<ReplayResult> {
    const entries = this.cassette.entries;
    let previous: number | undefined;
    let completed = true;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (entry.from === "agent") {
        if (!(await this.expect(i, entry))) {
          completed = false;
          break;
        }
      } else {
        if (this.options.timing && previous !== undefined)
          await delay(Math.min(Math.max(0, entry.time - previous), this.options.maxGapMs ?? 10_000));
        this.send(entry);
      }
      previous = entry.time;
    }
    this.result.completed = completed;
    for (const extra of this.unconsumed()) this.unexpected(entries.length, extra);
    return this.result;
  }

  private send(entry: CassetteEntry): void {
    const frame = entry.frame;
    if (frame.kind === "unparsable") this.peer.sendRaw(`${frame.line}\n`);
    else if (frame.kind === "message") {
      const recorded = frame.value as Record<string, unknown>;
      const message = this.correspondence.toLive(recorded);
      if ("id" in recorded) {
        if (typeof recorded.method === "string") {
          message.id = recorded.id;
          this.sentMethods.set(idKey(recorded.id as JsonRpcId), recorded.method);
        } else message.id = this.agentIds.get(idKey(recorded.id as JsonRpcId)) ?? recorded.id;
      }
      this.correspondence.own(recorded, message);
      this.peer.send(message);
    } else return;
    this.result.sent++;
  }

  /** Waits for the agent frame of recorded entry `i` and compares it; false when the agent is gone. */
  private async expect(i: number, entry: CassetteEntry): Promise<boolean> {
    const what = describeEntry(entry, (id) => this.sentMethods.get(idKey(id)));
    if (this.peer.closed && this.unconsumed().length === 0 && !this.answerPending(entry)) {
      this.diverge({
        kind: "missing",
        entry: i,
        frame: what,
        message: "the agent closed the connection before sending it",
      });
      return false;
    }
    const recorded = entry.frame.kind === "message" ? (entry.frame.value as Record<string, unknown>) : undefined;
    const isAnswer = recorded !== undefined && typeof recorded.method !== "string" && "id" in recorded;
    return isAnswer ? this.expectAnswer(i, entry, recorded, what) : this.expectFrame(i, entry, recorded, what);
  }

  /** True when the answer recorded in `entry` has arrived (the agent may have closed after sending it). */
  private answerPending(entry: CassetteEntry): boolean {
    const value = entry.frame.kind === "message" ? (entry.frame.value as { method?: unknown; id?: JsonRpcId }) : {};
    if (typeof value.method === "string" || value.id === undefined) return false;
    const key = idKey(value.id);
    return this.peer.received(0).some((e) => e.type === "response" && idKey(e.id) === key);
  }

  /** An answer to one of this side's requests: matched by id, wherever it stands. */
  private async expectAnswer(
    i: number,
    entry: CassetteEntry,
    recorded: Record<string, unknown>,
    what: string,
  ): Promise<boolean> {
    const key = idKey(recorded.id as JsonRpcId);
    let live: WireEvent;
    try {
      live = await this.peer.waitFor((e) => e.type === "response" && idKey(e.id) === key, {
        what,
        timeoutMs: this.waitMs(),
        since: 0,
      });
    } catch (error) {
      return this.notReceived(i, what, error);
    }
    this.answered.add(key);
    // Frames the agent sent before this answer that no recorded frame took: the recording does not have them.
    for (const extra of this.unconsumed()) if (extra.index < live.index) this.unexpected(i, extra);
    this.compare(i, entry, recorded, live);
    return true;
  }

  /**
   * Any other frame: the earliest live frame of the same kind and method (`session/update` by update kind) that no
   * recorded frame took yet, preferring one that matches exactly, so an extra or a missing frame shifts nothing.
   * It is missing when an answer recorded after it comes first, when the agent closes, or when nothing comes in
   * time (shorter once the conversation has diverged: see `ReplayOptions.divergedTimeoutMs`).
   */
  private async expectFrame(
    i: number,
    entry: CassetteEntry,
    recorded: Record<string, unknown> | undefined,
    what: string,
  ): Promise<boolean> {
    const signature = entrySignature(entry);
    const deadline = Date.now() + (this.options.timeoutMs ?? 30_000);
    for (;;) {
      const candidates = this.unconsumed().filter((e) => liveSignature(e) === signature);
      if (candidates.length > 0) {
        const live =
          candidates.find(
            (e) => recorded === undefined || this.correspondence.matches(body(recorded), body(e.value)),
          ) ?? candidates[0]!;
        this.consumed.add(live.index);
        if (
          recorded !== undefined &&
          typeof recorded.method === "string" &&
          "id" in recorded &&
          live.type === "request"
        )
          this.agentIds.set(idKey(recorded.id as JsonRpcId), live.id!);
        this.compare(i, entry, recorded, live);
        return true;
      }
      const later = this.peer.received(0).find((e) => e.type === "response" && this.laterAnswer(e));
      if (later !== undefined) {
        this.diverge({
          kind: "missing",
          entry: i,
          frame: what,
          message:
            `the agent did not send it: ` +
            `${describeMessage(later.value, (id) => this.sentMethods.get(idKey(id)))} came first`,
        });
        return true;
      }
      const left = deadline - Date.now();
      const diverged = this.result.divergences.length > 0 || this.unconsumed().length > 0;
      const timeoutMs = Math.max(0, Math.min(left, diverged ? this.divergedWaitMs() : left));
      try {
        // The next frame of the agent, whatever it is; then look again.
        await this.peer.waitFor(() => true, { what, timeoutMs });
      } catch (error) {
        return this.notReceived(i, what, error);
      }
    }
  }

  /** A wait for recorded entry `i` ended without its frame. False when the agent is gone. */
  private notReceived(i: number, what: string, error: unknown): boolean {
    if (error instanceof WaitTimeoutError) {
      this.stalled = true;
      this.diverge({ kind: "missing", entry: i, frame: what, message: `not received within ${error.timeoutMs} ms` });
      return true;
    }
    this.diverge({
      kind: "missing",
      entry: i,
      frame: what,
      message: "the agent closed the connection before sending it",
    });
    return false;
  }

  /** How long to wait for an answer: the whole timeout, or a short one after a wait already ran out. */
  private waitMs(): number {
    return this.stalled ? this.divergedWaitMs() : (this.options.timeoutMs ?? 30_000);
  }

  private divergedWaitMs(): number {
    return Math.min(this.options.divergedTimeoutMs ?? 2000, this.options.timeoutMs ?? 30_000);
  }

  /** The agent's frames (answers aside) that no recorded frame took and that were not reported yet, in order. */
  private unconsumed(): WireEvent[] {
    return this.peer
      .received(0)
      .filter((e) => e.type !== "response" && !this.consumed.has(e.index) && !this.reported.has(e.index));
  }

  /** An answer to a request whose recorded answer is still ahead (its arrival means expected frames are missing). */
  private laterAnswer(event: WireEvent): boolean {
    const key = idKey(event.id);
    return this.sentMethods.has(key) && !this.answered.has(key);
  }

  private compare(
    i: number,
    entry: CassetteEntry,
    recorded: Record<string, unknown> | undefined,
    live: WireEvent,
  ): void {
    this.stalled = false;
    this.result.compared++;
    const what = describeEntry(entry, (id) => this.sentMethods.get(idKey(id)));
    if (entry.frame.kind === "unparsable") {
      if (live.type !== "unparsable" || live.line !== entry.frame.line)
        this.diverge({
          kind: "differs",
          entry: i,
          frame: what,
          message: `expected the line ${JSON.stringify(entry.frame.line)}, got ${describeLive(live)}`,
        });
      return;
    }
    if (recorded === undefined) return;
    if (live.type === "unparsable" || live.type === "oversized" || live.type === "invalid") {
      this.diverge({ kind: "differs", entry: i, frame: what, message: `got ${describeLive(live)} instead` });
      return;
    }
    if (typeof recorded.method === "string" && recorded.method !== live.method) {
      this.diverge({ kind: "differs", entry: i, frame: what, message: `got ${describeMessage(live.value)} instead` });
      return;
    }
    const differences = this.correspondence.compare(body(recorded), body(live.value));
    if (differences.length > 0)
      this.diverge({
        kind: "differs",
        entry: i,
        frame: what,
        message: `${differences.length} difference${differences.length === 1 ? "" : "s"}`,
        differences,
      });
  }

  private unexpected(i: number, live: WireEvent): void {
    this.reported.add(live.index);
    this.diverge({
      kind: "unexpected",
      entry: i,
      frame: `agent ${describeLive(live)}`,
      message: "the agent sent a frame the recording does not have here",
    });
  }

  private diverge(divergence: Divergence): void {
    this.result.divergences.push(divergence);
    this.options.onDivergence?.(divergence);
  }
}

/**
 * What a recorded frame is, for alignment: `request session/request_permission`, `notification session/update plan`.
 */
function entrySignature(entry: CassetteEntry): string {
  return entry.frame.kind === "message" ? messageSignature(entry.frame.value) : entry.frame.kind;
}

/** What a live frame is, for alignment (as `entrySignature`). */
function liveSignature(event: WireEvent): string {
  return event.type === "unparsable" || event.type === "oversized" ? event.type : messageSignature(event.value);
}

function messageSignature(value: unknown): string {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return "invalid";
  const message = value as { method?: unknown; params?: { update?: { sessionUpdate?: unknown } } };
  const update = message.params?.update?.sessionUpdate;
  const kind = message.method === "session/update" && typeof update === "string" ? ` ${update}` : "";
  return `${"id" in message ? "request" : "notification"} ${String(message.method)}${kind}`;
}

function describeLive(event: WireEvent): string {
  if (event.type === "unparsable") return `the line ${JSON.stringify((event.line ?? "").slice(0, 60))}`;
  if (event.type === "oversized") return `an oversized frame (${event.bytes} bytes)`;
  return describeMessage(event.value);
}

/** The cwd of the first session set up in the recording. */
export function firstCwd(cassette: Cassette): string | undefined {
  for (const entry of cassette.entries) {
    if (entry.from !== "client" || entry.frame.kind !== "message") continue;
    const message = entry.frame.value as { method?: unknown; params?: { cwd?: unknown } };
    if (
      (message.method === "session/new" || message.method === "session/load" || message.method === "session/resume") &&
      typeof message.params?.cwd === "string"
    )
      return message.params.cwd;
  }
  return undefined;
}
