/**
 * The frames of one lane, as the timeline shows them: the bytes each side wrote, split into lines by the library's
 * `LineSplitter`, classified and checked by the library's rule engine (`WireChecker`, run here in the browser), each
 * row keeping its exact text (what was on the wire), its pairing (request ⇄ response, with the latency) and the
 * findings about it. Rows are compact on purpose: a 200,000-chunk turn keeps 200,000 of them.
 */
import { LineSplitter, WireChecker, type Finding, type Side, type WireEvent, type WireFrame } from "@acpkit/sdk/wire";
import { SHARED_UPDATE_KINDS } from "./fold.js";

/** One frame of the timeline. */
export interface FrameRow {
  /** Position in the lane, both directions counted (the rule engine's event index). */
  readonly index: number;
  readonly time: number;
  readonly from: Side;
  readonly type: WireEvent["type"];
  /** The method (for a response: of the request it answers). */
  readonly method: string | undefined;
  /** The JSON-RPC id, as JSON text. */
  readonly id: string | undefined;
  readonly sessionId: string | undefined;
  /** `session/update`'s kind. */
  readonly updateKind: string | undefined;
  /** The frame's exact text (a line), or the head of an oversized one. */
  readonly text: string;
  /** The size of an oversized frame. */
  readonly bytes?: number;
  /** The other half of a request/response pair. */
  pair: number | undefined;
  /** For a response: milliseconds since its request. */
  latency: number | undefined;
  /** An error response, an invalid frame, or one the rules found fault with. */
  error: boolean;
  findings: Finding[] | undefined;
}

/** What the lane's frames tell listeners as they come. */
export interface FrameSink {
  frame(row: FrameRow, event: WireEvent): void;
  finding(finding: Finding, row: FrameRow | undefined): void;
}

const MAX_LINE = 64 * 1024 * 1024;

/** The frames of one lane, fed with bytes (live) or frames (a cassette). */
export class LaneFrames {
  readonly rows: FrameRow[] = [];
  /** Findings not tied to a frame (found at the end of the conversation). */
  readonly endFindings: Finding[] = [];
  readonly checker: WireChecker;
  readonly #splitters: Record<Side, LineSplitter>;
  #errors = 0;
  #ended = false;

  constructor(private readonly sink: FrameSink) {
    this.checker = new WireChecker({ onFinding: (finding) => this.#finding(finding) });
    const splitter = (from: Side, time: () => number) =>
      new LineSplitter(MAX_LINE, {
        line: (text) => this.#line(from, text, time()),
        tooLarge: (bytes, head) => this.frame(from, { kind: "oversized", bytes, head }, time(), head),
      });
    this.#splitters = {
      client: splitter("client", () => this.#time),
      agent: splitter("agent", () => this.#time),
    };
  }

  #time = 0;
  #held: Finding[] = [];

  /** How many rows are errors (for the lane's badge). */
  get errorCount(): number {
    return this.#errors;
  }

  /** Bytes `from` wrote at `time`. */
  bytes(from: Side, chunk: Uint8Array, time: number): void {
    this.#time = time;
    this.#splitters[from].push(chunk);
  }

  /** `from`'s output ended. */
  endOf(from: Side, time: number): void {
    this.#time = time;
    this.#splitters[from].end();
  }

  /** Both sides are done: the rules' end checks run. */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.checker.end();
  }

  #line(from: Side, text: string, time: number): void {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.frame(from, { kind: "unparsable", line: text }, time, text);
      return;
    }
    this.frame(from, { kind: "message", value }, time, text);
  }

  /** One frame (from a cassette, or split from bytes). */
  frame(from: Side, frame: WireFrame, time: number, text: string): FrameRow {
    const event = this.checker.frame(from, frame, time);
    const request = event.request;
    const params = (event.type === "response" ? request?.params : event.params) as
      { sessionId?: unknown; update?: { sessionUpdate?: unknown } } | undefined;
    const failed =
      event.type === "invalid" ||
      event.type === "unparsable" ||
      event.type === "oversized" ||
      event.error !== undefined;
    const row: FrameRow = {
      index: event.index,
      time,
      from,
      type: event.type,
      method: event.method,
      id: event.id === undefined ? undefined : JSON.stringify(event.id),
      sessionId: typeof params?.sessionId === "string" ? params.sessionId : sessionFromResult(event),
      updateKind:
        event.method === "session/update" && typeof params?.update?.sessionUpdate === "string"
          ? params.update.sessionUpdate
          : undefined,
      text,
      ...(frame.kind === "oversized" ? { bytes: frame.bytes } : {}),
      pair: undefined,
      latency: undefined,
      error: failed,
      findings: undefined,
    };
    if (failed) this.#errors++;
    if (event.type === "response" && request !== undefined) {
      const asked = this.rows[request.index];
      if (asked !== undefined) {
        asked.pair = row.index;
        row.pair = asked.index;
        row.latency = time - asked.time;
      }
    }
    this.rows[row.index] = row;
    this.sink.frame(row, event);
    if (this.#held.length > 0) {
      const held = this.#held;
      this.#held = [];
      for (const finding of held) this.#attach(finding, this.rows[finding.event!.index]);
    }
    return row;
  }

  #finding(finding: Finding): void {
    const row = finding.event ? this.rows[finding.event.index] : undefined;
    // A finding about the frame being classified comes before its row exists: attached once the row is stored.
    if (finding.event && row === undefined) this.#held.push(finding);
    else this.#attach(finding, row);
  }

  #attach(finding: Finding, row: FrameRow | undefined): void {
    if (row !== undefined && finding.rule === "schema" && SHARED_UPDATE_KINDS.has(row.updateKind))
      finding = {
        ...finding,
        severity: "warning",
        message:
          `${finding.message} (${row.updateKind} is a shared session's update, from the multi-client attach ` +
          "proposal, ACP RFD #533: acp serve sends it to clients that attached to a session; it is not in ACP v1)",
      };
    if (row === undefined) this.endFindings.push(finding);
    else {
      (row.findings ??= []).push(finding);
      if (finding.severity === "error" && !row.error) {
        row.error = true;
        this.#errors++;
      }
    }
    this.sink.finding(finding, row);
  }
}

/** The session a `session/new`, `session/fork` ... result names. */
function sessionFromResult(event: WireEvent): string | undefined {
  const id = (event.result as { sessionId?: unknown } | undefined)?.sessionId;
  return typeof id === "string" ? id : undefined;
}
