/**
 * The page's state: the server's hello, the lanes, what is selected, and what the page asks of the person
 * (permission dialogs, forms). Views subscribe; changes are announced at most once per animation frame, so a
 * stream of 200,000 frames re-renders at the screen's pace, not the wire's.
 */
import type { Hello, LaneInfo, ServerMessage } from "../../feed-protocol.js";
import { LaneModel } from "./lane.js";

export interface Notice {
  readonly id: number;
  readonly level: "info" | "warning" | "error";
  readonly text: string;
}

/** A question for the person: a permission request or a form, answered through `resolve`. */
export interface Question {
  readonly id: number;
  readonly lane: number;
  readonly kind: "permission" | "elicitation";
  readonly params: any;
  resolve(answer: unknown): void;
}

export class Store {
  hello: Hello | undefined;
  readonly lanes = new Map<number, LaneModel>();
  selectedLane: number | undefined;
  selectedSession: string | undefined;
  selectedFrame: number | undefined;
  connected = false;
  closedReason: string | undefined;
  notices: Notice[] = [];
  /** Filters another view asks the wire to show (a check failure's "find in the wire"); the wire adopts them once. */
  wireQuery: { method: string; errorsOnly: boolean; search: string } | undefined;
  questions: Question[] = [];
  version = 0;
  readonly #listeners = new Set<() => void>();
  #scheduled = false;
  #nextNotice = 1;
  #nextQuestion = 1;
  #localLanes = -1;

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Something changed: views re-render on the next animation frame. */
  changed = (): void => {
    this.version++;
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      for (const listener of this.#listeners) listener();
    });
  };

  get lane(): LaneModel | undefined {
    return this.selectedLane === undefined ? undefined : this.lanes.get(this.selectedLane);
  }

  /** A message from the server. */
  serverMessage(message: ServerMessage): void {
    switch (message.type) {
      case "hello":
        this.hello = message;
        this.connected = true;
        break;
      case "lane":
        this.addLane(message.lane);
        break;
      case "lane-closed":
        this.lanes.get(message.lane)?.close(message.reason);
        break;
      case "stderr":
        this.lanes.get(message.lane)?.stderr.push(message.line);
        break;
      case "terminal-output":
        for (const lane of this.lanes.values()) lane.fold.terminalOutput(message.terminalId, message.text);
        break;
      case "terminal-exit":
        for (const lane of this.lanes.values()) lane.fold.terminalExit(message.terminalId, message.exitStatus);
        break;
      case "notice":
        this.notify(message.level, message.text);
        break;
    }
    this.changed();
  }

  addLane(info: LaneInfo): LaneModel {
    const lane = new LaneModel(info, this.changed);
    this.lanes.set(info.id, lane);
    if (this.selectedLane === undefined || this.lane?.info.role === "tap" || info.role === "observer")
      this.selectedLane ??= info.id;
    this.changed();
    return lane;
  }

  /** A lane that lives only in the page (an imported cassette). */
  addLocalLane(label: string): LaneModel {
    const lane = this.addLane({ id: this.#localLanes--, role: "recorded", label, started: Date.now() });
    return lane;
  }

  select(lane: number | undefined, session?: string): void {
    this.selectedLane = lane;
    this.selectedSession = session;
    this.selectedFrame = undefined;
    this.changed();
  }

  notify(level: Notice["level"], text: string): void {
    this.notices = [...this.notices.slice(-4), { id: this.#nextNotice++, level, text }];
    this.changed();
  }

  dismiss(id: number): void {
    this.notices = this.notices.filter((notice) => notice.id !== id);
    this.changed();
  }

  /** Asks the person; resolves with the answer. */
  ask(lane: number, kind: Question["kind"], params: unknown): Promise<unknown> {
    return new Promise((resolve) => {
      const question: Question = {
        id: this.#nextQuestion++,
        lane,
        kind,
        params,
        resolve: (answer) => {
          this.questions = this.questions.filter((q) => q !== question);
          this.changed();
          resolve(answer);
        },
      };
      this.questions = [...this.questions, question];
      this.changed();
    });
  }
}
