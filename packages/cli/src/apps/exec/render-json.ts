/**
 * `--format json` (one object when the turn is over) and `--format ndjson` (one line per event as it happens:
 * `session`, `update` (every `session/update`; those that arrived before the prompt was sent, such as a loaded
 * session's history, are marked `beforeTurn: true`, those the agent sent after answering the prompt `late: true`),
 * `permission`, `stderr` (with --verbose), then `result`).
 *
 * Both are faithful: the agent's text is JSON-escaped as it came, control characters included (`\u001b`), never
 * stripped: a consumer gets exactly what the agent sent. DEL and the C1 controls, which JSON may leave raw, are
 * escaped too (`\u009b`), so the output is safe on a terminal as well. Diagnostics on stderr are made safe.
 */
import { sanitizeTerminalText, type Transcript } from "@acpkit/sdk/client-toolkit";
import type { RequestPermissionRequest, RequestPermissionResponse, SessionNotification } from "@acpkit/sdk";
import type { ExecRenderer, ExecResult, SessionStarted, UpdatePlacement } from "./renderer.js";

/** `JSON.stringify`, with DEL and C1 controls (U+007F to U+009F) escaped as well: the same JSON value. */
export function terminalSafeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[\u007f-\u009f]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/** The summary both formats end with. */
export interface ResultObject {
  type: "result";
  exitCode: number;
  sessionId: string | null;
  stopReason: string | null;
  /** The agent's answer: the text of its messages in this turn, concatenated exactly as it sent them. */
  text: string;
  toolCalls: Array<{ toolCallId: string; title: string; kind: string; status: string; cancelled?: boolean }>;
  plan: unknown[] | null;
  usage: unknown;
  error: string | null;
  /** What the agent did wrong without failing the run (e.g. `end_turn` answered to a cancelled turn). */
  warnings?: string[];
}

/** Builds the result object from the transcript's last turn. */
export function resultObject(result: ExecResult): ResultObject {
  const transcript: Transcript | undefined = result.transcript;
  const turn = transcript?.turns[transcript.turns.length - 1]?.index;
  const entries =
    transcript === undefined || turn === undefined ? [] : transcript.entries.filter((entry) => entry.turn === turn);
  return {
    type: "result",
    exitCode: result.exitCode,
    sessionId: result.sessionId ?? null,
    stopReason: result.stopReason ?? null,
    // The agent's text as it sent it: no separator of the text renderer's between its messages.
    text: entries
      .filter((entry) => entry.kind === "message" && entry.role === "agent")
      .map((entry) => (entry.kind === "message" ? entry.text : ""))
      .join(""),
    toolCalls: entries.flatMap((entry) =>
      entry.kind === "tool_call"
        ? [
            {
              toolCallId: entry.toolCall.toolCallId,
              title: entry.toolCall.title,
              kind: entry.toolCall.kind,
              status: entry.toolCall.status,
              ...(entry.toolCall.cancelled ? { cancelled: true } : {}),
            },
          ]
        : [],
    ),
    plan: transcript?.plan ? [...transcript.plan] : null,
    usage: transcript?.usage ?? null,
    error: result.error ?? null,
    ...(result.warnings !== undefined && result.warnings.length > 0 ? { warnings: [...result.warnings] } : {}),
  };
}

/** `--format json`: prints one object at the end; diagnostics go to stderr. */
export class JsonRenderer implements ExecRenderer {
  constructor(
    private readonly out: (text: string) => void,
    private readonly diagnostic: (text: string) => void,
  ) {}
  session(): void {}
  update(): void {}
  permission(): void {}
  stderr(): void {}
  note(text: string): void {
    this.diagnostic(sanitizeTerminalText(text));
  }
  finish(result: ExecResult): void {
    this.out(`${terminalSafeJson(resultObject(result), 2)}\n`);
  }
}

/** `--format ndjson`: one JSON line per event, flushed as it happens. */
export class NdjsonRenderer implements ExecRenderer {
  constructor(
    private readonly out: (text: string) => void,
    private readonly diagnostic: (text: string) => void,
  ) {}
  #line(value: unknown): void {
    this.out(`${terminalSafeJson(value)}\n`);
  }
  session(started: SessionStarted): void {
    this.#line({ type: "session", ...started });
  }
  update(notification: SessionNotification, placement: UpdatePlacement): void {
    const where = placement === "before" ? { beforeTurn: true } : placement === "late" ? { late: true } : {};
    this.#line({ type: "update", sessionId: notification.sessionId, ...where, update: notification.update });
  }
  permission(request: RequestPermissionRequest, response: RequestPermissionResponse, policy: string): void {
    this.#line({ type: "permission", policy, request, response });
  }
  stderr(line: string): void {
    this.#line({ type: "stderr", line });
  }
  note(text: string): void {
    this.diagnostic(sanitizeTerminalText(text));
  }
  finish(result: ExecResult): void {
    this.#line(resultObject(result));
  }
}
