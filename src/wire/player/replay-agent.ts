/**
 * Plays the agent's side of a cassette to a live client: each recorded agent frame is sent once every client frame
 * recorded before it has arrived (barrier semantics); answers carry the live client's request ids; paths under the
 * recorded cwd move to the live cwd; timing is kept on request. A client that strays from the recording (a frame
 * the cassette does not have) is reported, and its extra requests are answered with an error.
 */
import type { JsonRpcId } from "../../jsonrpc/messages.js";
import type { Cassette, CassetteEntry } from "../cassette.js";
import type { WireEvent } from "../events.js";
import { PeerClosedError, WaitTimeoutError, type ScriptPeer } from "../script-peer.js";
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

/** Replays the agent's side to the client on the other end of `peer` (a `ScriptPeer` playing the agent). */
export async function replayAgent(
  cassette: Cassette,
  peer: ScriptPeer,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  if (peer.side !== "agent") throw new TypeError('replayAgent needs a ScriptPeer playing the agent (side: "agent")');
  const player = new AgentPlayer(cassette, peer, options);
  return player.play();
}

class AgentPlayer {
  private readonly correspondence: Correspondence;
  private readonly clientIds = new Map<string, JsonRpcId>();
  private readonly methods = new Map<string, string>();
  /** Methods of the requests this side (the agent) sent, by recorded id. */
  private readonly sentMethods = new Map<string, string>();
  private readonly result: ReplayResult = { sent: 0, compared: 0, divergences: [], completed: false };
  private cursor = 0;

  constructor(
    private readonly cassette: Cassette,
    private readonly peer: ScriptPeer,
    private readonly options: ReplayOptions,
  ) {
    this.correspondence = new Correspondence(new Set(options.ignore ?? []));
  }

  async play(): Promise<ReplayResult> {
    const entries = this.cassette.entries;
    let previous: number | undefined;
    for (let i = 0; i < entries.length; i++) {
      const entry = entries[i]!;
      if (entry.from === "client") {
        if (entry.frame.kind !== "message") continue;
        if (!(await this.expect(i, entry))) return this.result;
      } else {
        if (this.options.timing && previous !== undefined)
          await delay(Math.min(Math.max(0, entry.time - previous), this.options.maxGapMs ?? 10_000));
        this.send(entry);
      }
      previous = entry.time;
    }
    this.result.completed = true;
    void this.answerExtras(entries.length);
    return this.result;
  }

  /** Waits for the live client frame that matches recorded entry `i`; false when the client went away or stalled. */
  private async expect(i: number, entry: CassetteEntry): Promise<boolean> {
    const recorded = (entry.frame as { value: Record<string, unknown> }).value;
    for (;;) {
      let live: WireEvent;
      try {
        live = await this.peer.waitFor((e) => e.index >= this.cursor, {
          what: describeEntry(entry),
          timeoutMs: this.options.timeoutMs ?? 30_000,
          since: this.cursor,
        });
      } catch (error) {
        const why =
          error instanceof WaitTimeoutError
            ? `did not come within ${error.timeoutMs} ms`
            : error instanceof PeerClosedError
              ? "never came: the client closed the connection"
              : String(error);
        this.diverge({
          kind: "missing",
          entry: i,
          frame: describeEntry(entry),
          message: `the client's ${describeMessage(recorded)} ${why}`,
        });
        return false;
      }
      this.cursor = live.index + 1;
      if (this.matches(recorded, live)) {
        this.result.compared++;
        this.learn(i, recorded, live);
        return true;
      }
      this.unexpected(i, live);
    }
  }

  private matches(recorded: Record<string, unknown>, live: WireEvent): boolean {
    if (typeof recorded.method === "string")
      return (live.type === "request") === "id" in recorded && live.method === recorded.method;
    return live.type === "response" && idKey(live.id) === idKey(recorded.id as JsonRpcId);
  }

  private learn(i: number, recorded: Record<string, unknown>, live: WireEvent): void {
    if (live.type === "request") {
      this.clientIds.set(idKey(recorded.id as JsonRpcId), live.id!);
      this.methods.set(idKey(recorded.id as JsonRpcId), live.method!);
    }
    const params = (recorded.params ?? {}) as { cwd?: unknown };
    const liveParams = (live.params ?? {}) as { cwd?: unknown };
    if (typeof params.cwd === "string" && typeof liveParams.cwd === "string")
      this.correspondence.mapPrefix(params.cwd, liveParams.cwd);
    const differences = this.correspondence.compare(body(recorded), body(live.value));
    if (differences.length > 0) {
      // Worth knowing, not a reason to stop: the client worded its prompt differently, or answered a request of
      // the agent otherwise (another permission option, another file content), which the recording cannot follow.
      this.diverge({
        kind: "differs",
        entry: i,
        frame: `client ${describeMessage(live.value, (id) => this.sentMethods.get(idKey(id)))}`,
        message: "the client's frame differs from the recording",
        differences,
      });
    }
  }

  private unexpected(i: number, live: WireEvent): void {
    this.diverge({
      kind: "unexpected",
      entry: i,
      frame: `client ${describeMessage(live.value)}`,
      message: "the client sent a frame the recording does not have here",
    });
    if (live.type === "request")
      this.peer.respondError(live, -32603, `acp replay: the cassette has no answer to ${live.method} here`, {
        cassetteEntry: i,
      });
  }

  private send(entry: CassetteEntry): void {
    const frame = entry.frame;
    if (frame.kind === "unparsable") this.peer.sendRaw(`${frame.line}\n`);
    else if (frame.kind === "message") {
      const recorded = frame.value as Record<string, unknown>;
      const message = this.correspondence.toLive(recorded);
      if (!("method" in recorded) && "id" in recorded)
        message.id = this.clientIds.get(idKey(recorded.id as JsonRpcId)) ?? recorded.id;
      else if ("id" in recorded) {
        message.id = recorded.id;
        this.sentMethods.set(idKey(recorded.id as JsonRpcId), String(recorded.method));
      }
      this.correspondence.own(recorded, message);
      this.peer.send(message);
    } else return;
    this.result.sent++;
  }

  /** After the recording: requests the client still sends are answered with an error until it leaves. */
  private async answerExtras(end: number): Promise<void> {
    for (;;) {
      const live = await this.peer
        .waitFor((e) => e.index >= this.cursor, { what: "more frames", since: this.cursor })
        .catch(() => undefined);
      if (!live) return;
      this.cursor = live.index + 1;
      this.unexpected(end, live);
    }
  }

  private diverge(divergence: Divergence): void {
    this.result.divergences.push(divergence);
    this.options.onDivergence?.(divergence);
  }
}
