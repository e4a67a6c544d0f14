/**
 * `--format text`: the agent's answer streamed to stdout, one compact line per tool call when it finishes
 * (`• Read notes.txt (read) ✓`), everything else (diagnostics, and with --verbose thoughts, plans, permission
 * decisions and the agent's stderr) on stderr. Colours only on a terminal without NO_COLOR.
 *
 * Everything the agent wrote (its messages, thoughts, plan, tool titles and kinds, permission options, stderr, names,
 * and the notes quoting it) goes through `sanitizeTerminalText` / a `TerminalTextFilter`: no control sequence from
 * the agent reaches the terminal; our own colours are added after.
 */
import { sanitizeTerminalText as safe, TerminalTextFilter, type Transcript } from "@acpkit/sdk/client-toolkit";
import type { RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from "@acpkit/sdk";
import type { Painter } from "../shared/painter.js";
import type { ExecRenderer, ExecResult, SessionStarted, UpdatePlacement } from "./renderer.js";

/** Where the text renderer writes. */
export interface TextSinks {
  out: (text: string) => void;
  err: (text: string) => void;
  outPaint: Painter;
  errPaint: Painter;
  verbose: boolean;
  /** The session's transcript (folded before each `update` call). */
  transcript: () => Transcript | undefined;
}

export class TextRenderer implements ExecRenderer {
  readonly #sinks: TextSinks;
  /** Whether stdout is at the start of a line. */
  #atLineStart = true;
  readonly #printedTools = new Set<string>();
  readonly #seenTools: string[] = [];
  /** The agent's message text is one stream: a sequence split across chunks is still removed whole. */
  readonly #messageFilter = new TerminalTextFilter();

  constructor(sinks: TextSinks) {
    this.#sinks = sinks;
  }

  session(started: SessionStarted): void {
    if (!this.#sinks.verbose) return;
    const agent = started.agent ? `${started.agent.title ?? started.agent.name} ${started.agent.version}` : "the agent";
    this.#noteStyled(
      this.#sinks.errPaint.dim(
        safe(`${agent}, protocol v${started.protocolVersion}, session ${started.sessionId} (${started.how})`),
      ),
    );
  }

  update(notification: SessionNotification, placement: UpdatePlacement): void {
    if (placement === "before") return;
    const update = notification.update;
    const { verbose, errPaint } = this.#sinks;
    switch (update.sessionUpdate) {
      case "agent_message_chunk":
        if (update.content.type === "text") this.#write(this.#messageFilter.push(update.content.text));
        return;
      case "tool_call":
      case "tool_call_update": {
        if (!this.#seenTools.includes(update.toolCallId)) this.#seenTools.push(update.toolCallId);
        const state = this.#sinks.transcript()?.toolCall(update.toolCallId);
        if (state && (state.status === "completed" || state.status === "failed")) this.#toolLine(update.toolCallId);
        return;
      }
      case "agent_thought_chunk":
        if (verbose && update.content.type === "text")
          this.#noteStyled(errPaint.dim(`thinking: ${safe(update.content.text)}`));
        return;
      case "plan":
        if (verbose) {
          const marks = update.entries.map(
            (entry) =>
              `[${entry.status === "completed" ? "x" : entry.status === "in_progress" ? ">" : " "}] ` +
              `${safe(entry.content)}`,
          );
          this.#noteStyled(`${errPaint.cyan("plan")} ${marks.join("  ")}`);
        }
        return;
      case "notice": {
        // Warnings and errors always reach stderr; informational notices with --verbose. Agent text, sanitized.
        if (update.severity !== "warning" && update.severity !== "error" && !verbose) return;
        const colour = update.severity === "error" || update.severity === "warning" ? errPaint.yellow : errPaint.cyan;
        const detail = update.description ? ` ${errPaint.dim(`(${safe(update.description)})`)}` : "";
        this.#noteStyled(`${colour(`notice ${safe(update.severity)}`)} ${safe(update.title)}${detail}`);
        return;
      }
      case "compaction_update":
        if (verbose)
          this.#noteStyled(
            errPaint.dim(`context compaction ${safe(update.status)}${update.error ? `: ${safe(update.error)}` : ""}`),
          );
        return;
      default:
        return;
    }
  }

  permission(request: RequestPermissionRequest, response: RequestPermissionResponse, policy: string): void {
    const outcome = response.outcome;
    const chosen =
      outcome.outcome === "selected"
        ? request.options.find((option) => option.optionId === outcome.optionId)
        : undefined;
    const allowed = chosen?.kind === "allow_once" || chosen?.kind === "allow_always";
    if (!this.#sinks.verbose && allowed) return;
    const what = safe(
      `${request.toolCall.title ?? request.toolCall.toolCallId}${request.toolCall.kind ? ` (${request.toolCall.kind})` : ""}`,
    );
    const answer = chosen === undefined ? "cancelled" : safe(`${chosen.name} [${chosen.kind}]`);
    this.#noteStyled(`${this.#sinks.errPaint.yellow("permission")} ${what}: ${answer} (${safe(policy)})`);
  }

  stderr(line: string): void {
    this.#noteStyled(this.#sinks.errPaint.dim(`agent| ${safe(line)}`));
  }

  /** A diagnostic line; it may quote the agent, so it is made safe for the terminal. */
  note(text: string): void {
    this.#sinks.err(`${safe(text)}\n`);
  }

  /** A diagnostic line styled here, its agent parts already made safe. */
  #noteStyled(text: string): void {
    this.#sinks.err(`${text}\n`);
  }

  finish(_result: ExecResult): void {
    this.#messageFilter.end();
    for (const toolCallId of this.#seenTools) this.#toolLine(toolCallId);
    if (!this.#atLineStart) this.#write("\n");
  }

  #toolLine(toolCallId: string): void {
    if (this.#printedTools.has(toolCallId)) return;
    const state = this.#sinks.transcript()?.toolCall(toolCallId);
    if (state === undefined) return;
    this.#printedTools.add(toolCallId);
    const paint = this.#sinks.outPaint;
    const mark =
      state.status === "completed"
        ? paint.green("✓")
        : state.status === "failed"
          ? paint.yellow(`✗ failed${failureReason(state.content)}`)
          : state.cancelled
            ? paint.yellow("cancelled")
            : paint.dim(safe(state.status));
    if (!this.#atLineStart) this.#write("\n");
    this.#write(
      `${paint.cyan("•")} ${safe(state.title || state.toolCallId)} ${paint.dim(`(${safe(state.kind)})`)} ${mark}\n`,
    );
  }

  #write(text: string): void {
    if (text === "") return;
    this.#sinks.out(text);
    this.#atLineStart = text.endsWith("\n");
  }
}

/**
 * Why a tool call failed, as the agent said it: the last text of its content (e.g. "the user said no"), on one line
 * and at most 200 characters, made safe for the terminal; empty when it gave none.
 */
function failureReason(content: readonly unknown[]): string {
  for (let i = content.length - 1; i >= 0; i--) {
    const item = content[i] as { type?: string; content?: { type?: string; text?: unknown } };
    if (item.type !== "content" || item.content?.type !== "text" || typeof item.content.text !== "string") continue;
    const line = item.content.text.replace(/\s+/g, " ").trim();
    if (line === "") continue;
    return `: ${safe(line.length > 200 ? `${line.slice(0, 200)}…` : line)}`;
  }
  return "";
}
