/**
 * Presents a `Transcript` on a `LiveView`: entries that can no longer change are committed to the scrollback in
 * order; the rest of the running turn, the plan, a pending permission prompt and the spinner line form the live
 * region. Without a TTY, entries are printed once they settle, and the turn's end settles everything.
 */
import {
  isFinished,
  type Transcript,
  type TranscriptChange,
  type TranscriptEntry,
  type Turn,
} from "@acpkit/sdk/client-toolkit";
import type { LiveView } from "./live-view.js";
import type { ChatPainter } from "./paint.js";
import { renderEntry, renderTurnEnd, renderUsage, type RenderEntryOptions } from "./render-entry.js";
import { renderPlan } from "./render-plan.js";
import { renderToolCall, type TerminalView } from "./render-tool.js";
import { append } from "./text-layout.js";

/** Options of `TranscriptView`. */
export interface TranscriptViewOptions {
  paint: ChatPainter;
  /** Live terminal output by id. */
  terminal?: (terminalId: string) => TerminalView | undefined;
  /** Extra lines at the bottom of the live region (permission prompt, spinner), recomputed on every render. */
  footer?: () => string[];
}

/**
 * Contracts:
 * - An entry is committed once, when it settles: a message when anything follows it, a tool call when finished or
 *   cancelled, everything when its turn ends or when it arrived outside a running turn (history replay).
 * - A turn's plan is not printed in the flow (it stays in the live region while the turn runs); the final plan
 *   is committed once, at the turn's end.
 * - A committed entry that changes later (an agent updating a call after the turn) is shown again as a short
 *   update line; nothing committed is ever redrawn.
 */
export class TranscriptView {
  readonly #view: LiveView;
  readonly #options: TranscriptViewOptions;
  #transcript: Transcript | undefined;
  #unsubscribe: (() => void) | undefined;
  #committed = 0;
  #planShown = new Set<number>();
  #usageShown: unknown;
  #scheduled = false;
  /** Show thoughts whole. */
  expandThoughts = false;

  constructor(view: LiveView, options: TranscriptViewOptions) {
    this.#view = view;
    this.#options = options;
  }

  /** Shows `transcript` from now on; what it already holds is committed at once (a loaded session's history). */
  attach(transcript: Transcript): void {
    this.#unsubscribe?.();
    this.#transcript = transcript;
    this.#committed = 0;
    this.#planShown = new Set();
    this.#unsubscribe = transcript.onChange((change) => this.#onChange(change));
    this.render();
  }

  /** The tool call card of `toolCallId` as it stands (for a permission prompt without a live region). */
  toolCard(toolCallId: string): string[] {
    const call = this.#transcript?.toolCall(toolCallId);
    if (call === undefined) return [];
    return renderToolCall(
      call,
      this.#view.width,
      this.#options.paint,
      this.#options.terminal ? { terminal: this.#options.terminal } : {},
    );
  }

  /** Stops listening. */
  detach(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** Commits what settled and redraws the live region now. */
  render(): void {
    this.#scheduled = false;
    const transcript = this.#transcript;
    const width = this.#view.width;
    const paint = this.#options.paint;
    if (transcript === undefined) return this.#view.setLive(this.#options.footer?.() ?? []);
    const entries = transcript.entries;
    const commit: string[] = [];
    while (this.#committed < entries.length && this.#settled(entries[this.#committed]!, this.#committed)) {
      append(commit, this.#renderFlow(entries[this.#committed]!, width, false));
      this.#committed++;
    }
    this.#view.commit(commit);
    const live: string[] = [];
    for (let index = this.#committed; index < entries.length; index++)
      append(live, this.#renderFlow(entries[index]!, width, true));
    const turn = transcript.currentTurn;
    if (turn !== undefined && transcript.plan !== undefined && transcript.plan.length > 0 && this.#turnHasPlan(turn)) {
      live.push(...renderPlan(transcript.plan, width, paint));
    }
    live.push(...(this.#options.footer?.() ?? []));
    this.#view.setLive(live);
  }

  /** Renders soon (batches a burst of streamed chunks into one redraw). */
  schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setTimeout(() => this.render(), 16).unref?.();
  }

  #onChange(change: TranscriptChange): void {
    switch (change.type) {
      case "turn_ended":
        return this.#endTurn(change.turn);
      case "entry_updated":
        if (change.index < this.#committed) return this.#lateUpdate(change.entry, change.previous);
        return this.schedule();
      case "state_changed":
        if (change.field !== "plan" && change.field !== "usage") return;
        return this.schedule();
      default:
        return this.schedule();
    }
  }

  #endTurn(turn: Turn): void {
    this.render();
    const paint = this.#options.paint;
    const transcript = this.#transcript!;
    const tail: string[] = [];
    if (this.#turnHasPlan(turn) && !this.#planShown.has(turn.index) && transcript.plan !== undefined) {
      this.#planShown.add(turn.index);
      tail.push(...renderPlan(transcript.plan, this.#view.width, paint));
    }
    tail.push(...renderTurnEnd(turn, paint));
    if (transcript.usage !== this.#usageShown) {
      this.#usageShown = transcript.usage;
      const usage = renderUsage(transcript.usage, paint);
      if (usage !== "") tail.push(usage);
    }
    this.#view.commit(tail);
  }

  #lateUpdate(entry: TranscriptEntry, previous: TranscriptEntry): void {
    this.render();
    if (
      entry.kind === "tool_call" &&
      previous.kind === "tool_call" &&
      entry.toolCall.status !== previous.toolCall.status
    ) {
      this.#view.commit(renderToolCall(entry.toolCall, this.#view.width, this.#options.paint, { collapsed: true }));
    } else if (
      entry.kind === "message" &&
      previous.kind === "message" &&
      entry.text.startsWith(previous.text) &&
      entry.text !== previous.text
    ) {
      this.#view.commit(
        renderEntry(
          { ...entry, text: entry.text.slice(previous.text.length).replace(/^\s+/, "") },
          this.#view.width,
          this.#options.paint,
        ),
      );
    }
  }

  #settled(entry: TranscriptEntry, index: number): boolean {
    const turn = this.#transcript!.currentTurn;
    if (turn === undefined || entry.turn !== turn.index) return true;
    switch (entry.kind) {
      case "plan":
        return true;
      case "message":
        return entry.role === "user" || index < this.#transcript!.entries.length - 1;
      case "tool_call":
        return isFinished(entry.toolCall) || entry.toolCall.cancelled === true;
      case "notice":
        return true;
      case "compaction":
        return entry.status !== "in_progress";
    }
  }

  #renderFlow(entry: TranscriptEntry, width: number, live: boolean): string[] {
    // A turn's plan stays in the live region while the turn runs and is printed once, final, when it ends.
    if (entry.kind === "plan" && entry.turn !== undefined) return [];
    const options: RenderEntryOptions = {
      expandThoughts: this.expandThoughts,
      live,
      ...(this.#options.terminal ? { terminal: this.#options.terminal } : {}),
    };
    return renderEntry(entry, width, this.#options.paint, options);
  }

  #turnHasPlan(turn: Turn): boolean {
    return this.#transcript!.entries.some((entry) => entry.kind === "plan" && entry.turn === turn.index);
  }
}
