/**
 * One lane of the page: its frames (timeline, rule engine), its conversation (fold) and what the server said about
 * it (stderr lines, when it closed). Lanes are fed live from the feed, or from a cassette; a cassette can be
 * stepped through: `step` says how many of its frames are shown.
 */
import { CassetteRecorder, type Cassette, type WireEvent, type WireFrame } from "@acpkit/sdk/wire";
import type { LaneInfo } from "../../feed-protocol.js";
import { ConversationFold } from "./fold.js";
import { LaneFrames, type FrameRow } from "./frames.js";

export class LaneModel {
  frames: LaneFrames;
  fold = new ConversationFold();
  readonly stderr: string[] = [];
  closedReason: string | undefined;
  closed = false;
  /** A recorded lane: the cassette, and how many of its frames are applied. */
  recorded: { cassette: Cassette; applied: number } | undefined;

  constructor(
    readonly info: LaneInfo,
    private readonly changed: () => void,
  ) {
    this.frames = this.#newFrames();
  }

  #newFrames(): LaneFrames {
    return new LaneFrames({
      frame: (_row: FrameRow, event: WireEvent) => {
        this.fold.apply(event);
        this.changed();
      },
      finding: () => this.changed(),
    });
  }

  /** A recorded lane starts over from its first frame (none applied). */
  restart(): void {
    if (!this.recorded) return;
    this.frames = this.#newFrames();
    this.fold = new ConversationFold();
    this.recorded.applied = 0;
    this.changed();
  }

  /** Whether the page drives this lane (its own client). */
  get driven(): boolean {
    return this.info.role === "client" || this.info.role === "replay";
  }

  bytes(from: "client" | "agent", chunk: Uint8Array, time: number): void {
    this.frames.bytes(from, chunk, time);
  }

  endOf(from: "client" | "agent", time: number): void {
    this.frames.endOf(from, time);
  }

  close(reason: string | undefined): void {
    this.closed = true;
    this.closedReason = reason;
    this.frames.end();
    this.changed();
  }

  /** Shows a cassette in this lane, `upTo` frames of it at once (the rest by `step`). */
  loadCassette(cassette: Cassette, upTo = cassette.entries.length): void {
    this.recorded = { cassette, applied: 0 };
    this.step(upTo);
  }

  /** Applies the next `count` recorded frames. */
  step(count = 1): void {
    const recorded = this.recorded;
    if (!recorded) return;
    const end = Math.min(recorded.cassette.entries.length, recorded.applied + count);
    for (let i = recorded.applied; i < end; i++) {
      const entry = recorded.cassette.entries[i]!;
      this.frames.frame(entry.from, entry.frame, entry.time, frameText(entry.frame));
    }
    recorded.applied = end;
    if (end === recorded.cassette.entries.length) this.frames.end();
    this.changed();
  }

  /** The lane's frames as a cassette, written by the library's recorder. */
  exportCassette(tool: { name: string; version: string }): string {
    const lines: string[] = [];
    const recorder = new CassetteRecorder((line) => lines.push(line), {
      tool,
      header: { lane: this.info.label },
    });
    for (const row of this.frames.rows) {
      if (row === undefined) continue;
      recorder.frame(
        row.from,
        rowFrame(row),
        row.time,
        row.type === "unparsable" || row.type === "oversized" ? undefined : row.text,
      );
    }
    recorder.close();
    return `${lines.join("\n")}\n`;
  }
}

/** The exact text of a recorded frame, as the timeline shows it. */
export function frameText(frame: WireFrame): string {
  if (frame.kind === "message") return JSON.stringify(frame.value);
  if (frame.kind === "unparsable") return frame.line;
  return frame.head;
}

function rowFrame(row: FrameRow): WireFrame {
  if (row.type === "unparsable") return { kind: "unparsable", line: row.text };
  if (row.type === "oversized") return { kind: "oversized", bytes: row.bytes ?? row.text.length, head: row.text };
  return { kind: "message", value: JSON.parse(row.text) };
}
