/**
 * Plays the client's side of a cassette against a live agent and reports where the agent's frames differ from the
 * recording. Each recorded client frame is sent once every agent frame recorded before it was received or declared
 * missing (barrier semantics). Volatile values (ids, times, paths under a moved cwd) are matched through a
 * `Correspondence`: the session id the live agent gives replaces the recorded one in what is sent next.
 *
 * Answers to the client's requests are matched by id; the agent's other frames in order. A recorded frame is
 * `missing` when an answer recorded after it arrives first (or nothing comes in time); a live frame with no recorded
 * counterpart is `unexpected`.
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
  /** Index in the conversation after which the agent's non-answer frames are not consumed yet. */
  private cursor = 0;
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
    for (const extra of this.peer.received(this.cursor))
      if (extra.type !== "response") this.unexpected(entries.length, extra);
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
      this.peer.send(message);
    } else return;
    this.result.sent++;
  }

  /** Waits for the agent frame of recorded entry `i` and compares it; false when the agent is gone. */
  private async expect(i: number, entry: CassetteEntry): Promise<boolean> {
    if (this.peer.closed && !this.pendingLive()) {
      this.diverge({
        kind: "missing",
        entry: i,
        frame: describeEntry(entry, (id) => this.sentMethods.get(idKey(id))),
        message: "the agent closed the connection before sending it",
      });
      return false;
    }
    const timeoutMs = this.stalled ? 1000 : (this.options.timeoutMs ?? 30_000);
    const what = describeEntry(entry, (id) => this.sentMethods.get(idKey(id)));
    const recorded = entry.frame.kind === "message" ? (entry.frame.value as Record<string, unknown>) : undefined;
    const isAnswer = recorded !== undefined && typeof recorded.method !== "string" && "id" in recorded;
    try {
      if (isAnswer) {
        const key = idKey(recorded.id as JsonRpcId);
        const live = await this.peer.waitFor((e) => e.type === "response" && idKey(e.id) === key, {
          what,
          timeoutMs,
          since: 0,
        });
        this.answered.add(key);
        // Frames the agent sent before this answer that the recording does not have.
        for (const extra of this.peer.received(this.cursor)) {
          if (extra.index >= live.index) break;
          if (extra.type === "response") continue;
          this.unexpected(i, extra);
          this.cursor = extra.index + 1;
        }
        this.compare(i, entry, recorded, live);
        return true;
      }
      const live = await this.peer.waitFor(
        (e) => e.index >= this.cursor && (e.type !== "response" || this.laterAnswer(e)),
        { what, timeoutMs, since: this.cursor },
      );
      if (live.type === "response") {
        this.diverge({
          kind: "missing",
          entry: i,
          frame: what,
          message:
            `the agent did not send it: ` +
            `${describeMessage(live.value, (id) => this.sentMethods.get(idKey(id)))} came first`,
        });
        return true;
      }
      this.cursor = live.index + 1;
      if (recorded !== undefined && typeof recorded.method === "string" && "id" in recorded && live.type === "request")
        this.agentIds.set(idKey(recorded.id as JsonRpcId), live.id!);
      this.compare(i, entry, recorded, live);
      return true;
    } catch (error) {
      if (error instanceof WaitTimeoutError) {
        this.stalled = true;
        this.diverge({ kind: "missing", entry: i, frame: what, message: `not received within ${timeoutMs} ms` });
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
  }

  /** An answer to a request whose recorded answer is still ahead (its arrival means expected frames are missing). */
  private laterAnswer(event: WireEvent): boolean {
    const key = idKey(event.id);
    return this.sentMethods.has(key) && !this.answered.has(key);
  }

  private pendingLive(): boolean {
    return this.peer.received(this.cursor).length > 0;
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
