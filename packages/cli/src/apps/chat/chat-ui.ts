/**
 * The chat's terminal UI: connects a `ChatSession` to the screen (a `TranscriptView` on a `LiveView`) and to
 * the keyboard (`TerminalInput`). Reads prompts, runs turns with a spinner, asks permissions by key, cancels on
 * Ctrl-C (twice quits), runs `:` commands. Without a TTY it reads lines and prints settled output only.
 */
import { readdirSync } from "node:fs";
import { resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { AskAnswer } from "@acpkit/sdk/client-toolkit";
import type { RequestPermissionRequest } from "@acpkit/sdk";
import { attach } from "./attachments.js";
import type { ChatSession } from "./chat-session.js";
import { complete, type DirEntry } from "./completion.js";
import { parseInput } from "./input.js";
import { LiveView } from "./live-view.js";
import { LOCAL_COMMANDS, runLocalCommand, type LocalCommandHost } from "./local-commands.js";
import type { ChatPainter } from "./paint.js";
import { optionForAnswer, optionForKey, renderPermission } from "./permission-prompt.js";
import { statusLine } from "./spinner.js";
import { TerminalInput, type Key } from "./terminal-input.js";
import { sanitize } from "./text-layout.js";
import { TranscriptView } from "./transcript-view.js";

/** The terminal the UI runs on. */
export interface ChatTerminal {
  input: Readable & { isTTY?: boolean; setRawMode?: (mode: boolean) => unknown };
  output: Writable & { isTTY?: boolean; columns?: number; rows?: number };
  /** Whether to draw a live region, a spinner and read keys (both ends are terminals). */
  tty: boolean;
  paint: ChatPainter;
  /** ASCII spinner frames (TERM=dumb). */
  ascii?: boolean;
}

interface TurnState {
  started: number;
  tick: number;
  cancelling: boolean;
  timer?: ReturnType<typeof setInterval>;
}

interface PendingAsk {
  request: RequestPermissionRequest;
  resolve: (answer: AskAnswer) => void;
}

/** The UI; build it, give `ask` to the `ChatSession`, then `attach` the session and `run`. */
export class ChatUi implements LocalCommandHost {
  readonly paint: ChatPainter;
  readonly #term: ChatTerminal;
  readonly #view: LiveView;
  readonly #transcriptView: TranscriptView;
  readonly #input: TerminalInput;
  readonly #asks: PendingAsk[] = [];
  #chat: ChatSession | undefined;
  #turn: TurnState | undefined;
  #quitting = false;
  /** The last turn ended after the user's Ctrl-C: one more at the prompt quits, as its status line said. */
  #userCancelled = false;
  /** A Ctrl-C pressed after a turn ended and before the prompt came back: taken as pressed at the prompt. */
  #lateInterrupt = false;
  /** The agent ignored a cancel: restart it once its turn has ended here. */
  #restartAfterTurn = false;

  constructor(term: ChatTerminal) {
    this.#term = term;
    this.paint = term.paint;
    // Output while a prompt line is being edited (another client's turn in a shared session) goes above it: the
    // prompt line is erased, the view writes (the cursor back at the end of its live region), and the prompt is drawn
    // again under what the view drew, with what was typed.
    let drawn = 0;
    this.#view = new LiveView({
      write: (text) => {
        const hidden = this.#input.hidePrompt();
        if (hidden && drawn > 0) term.output.write("\u001b[1A");
        term.output.write(text);
        drawn = this.#view.drawnLines;
        if (!hidden) return;
        if (drawn > 0) term.output.write("\n");
        this.#input.showPrompt();
      },
      size: () => ({ columns: term.output.columns ?? 80, rows: term.output.rows ?? 24 }),
      tty: term.tty,
    });
    this.#transcriptView = new TranscriptView(this.#view, {
      paint: term.paint,
      terminal: (id) => this.#chat?.terminals.get(id),
      footer: () => this.#footer(),
    });
    this.#input = new TerminalInput({
      input: term.input,
      output: term.output,
      tty: term.tty,
      completer: (line) => this.#complete(line),
    });
  }

  get chat(): ChatSession {
    if (this.#chat === undefined) throw new Error("no chat session attached");
    return this.#chat;
  }

  /** The permission callback for `ChatSession`: queues the request and shows it when its turn comes. */
  readonly ask = (request: RequestPermissionRequest, signal: AbortSignal): Promise<AskAnswer> =>
    new Promise<AskAnswer>((resolve) => {
      const pending: PendingAsk = { request, resolve: () => {} };
      const settle = (answer: AskAnswer) => {
        signal.removeEventListener("abort", onAbort);
        const index = this.#asks.indexOf(pending);
        if (index !== -1) this.#asks.splice(index, 1);
        resolve(answer);
        this.#transcriptView.render();
        if (!this.#term.tty) void this.#askNextByLine();
      };
      const onAbort = () => settle(null);
      pending.resolve = settle;
      signal.addEventListener("abort", onAbort, { once: true });
      this.#asks.push(pending);
      if (this.#term.tty) this.#transcriptView.render();
      else if (this.#asks.length === 1) void this.#askNextByLine();
    });

  /** Redraws soon (a terminal's output changed). */
  refresh(): void {
    this.#transcriptView.schedule();
  }

  print(lines: readonly string[]): void {
    this.#view.commit(lines);
  }

  toggleThoughts(): boolean {
    this.#transcriptView.expandThoughts = !this.#transcriptView.expandThoughts;
    return this.#transcriptView.expandThoughts;
  }

  /** Shows the chat session's current transcript. */
  showSession(): void {
    const transcript = this.#chat?.transcript;
    if (transcript !== undefined) this.#transcriptView.attach(transcript);
  }

  /** `:restart`: a fresh agent process, the session continued when it can be. */
  async restart(): Promise<void> {
    this.print([this.paint.dim("restarting the agent...")]);
    const next = await this.chat.restart();
    this.attach(next);
    this.print([this.paint.green(sanitize(`restarted ${next.agentName}; session ${next.sessionId ?? "?"}`))]);
  }

  /**
   * The agent did not end a cancelled turn within the deadline (the turn is being ended here): says so, and restarts
   * the agent as soon as the turn has ended, as `:restart` does, so that the next message goes to an agent that is
   * not still busy with the cancelled one.
   */
  agentIgnoredCancel(): void {
    this.print([
      this.paint.yellow(
        "the agent did not stop after the cancel: stopping it and starting it again (continuing the session " +
          "when it can)",
      ),
    ]);
    this.#restartAfterTurn = true;
  }

  /** Uses `chat` from now on. */
  attach(chat: ChatSession): void {
    this.#chat = chat;
    this.showSession();
  }

  /** Reads and runs input until `:quit`, end of input or a double Ctrl-C. Resolves with the exit code. */
  async run(): Promise<number> {
    let interrupted = false;
    let afterTurn = false;
    try {
      for (;;) {
        if (this.#quitting) return 130;
        if (this.chat.connection.signal.aborted) {
          this.print([
            this.paint.red("the agent is gone"),
            ...this.chat.stderrTail().map((line) => this.paint.dim(`  | ${sanitize(line)}`)),
          ]);
          return 1;
        }
        // The prompt goes under a live region still drawn (another client's turn running), on a line of its own.
        if (this.#view.drawnLines > 0) this.#term.output.write("\n");
        const late = this.#lateInterrupt;
        this.#lateInterrupt = false;
        const result = late ? ({ kind: "interrupt" } as const) : await this.#input.readLine(this.#promptText());
        if (result.kind === "eof") return 0;
        if (result.kind === "interrupt") {
          // The second Ctrl-C: after one that cancelled a turn, the quit is not a clean exit (as mid-turn).
          if (interrupted) return afterTurn ? 130 : 0;
          interrupted = true;
          afterTurn = false;
          this.print([this.paint.dim("(Ctrl-C again, Ctrl-D or :quit to leave)")]);
          continue;
        }
        interrupted = false;
        if ((await this.#handle(result.line)) === "quit") return 0;
        interrupted = afterTurn = this.#userCancelled;
        this.#userCancelled = false;
      }
    } finally {
      this.#view.clearLive();
      this.#input.close();
    }
  }

  async #handle(line: string): Promise<"quit" | void> {
    const parsed = parseInput(line);
    if (parsed.kind === "empty") return;
    if (parsed.kind === "local") return runLocalCommand(this, parsed.name, parsed.args);
    const chat = this.chat;
    if (chat.transcript === undefined) return this.print([this.paint.red("no session: try :new")]);
    const embedded = chat.capabilities.promptCapabilities?.embeddedContext === true;
    const { blocks, missing } = attach(parsed.mentions, chat.cwd, embedded);
    if (missing.length > 0)
      this.print([this.paint.yellow(`not found, sent as text: ${missing.map((m) => `@${m}`).join(" ")}`)]);
    await this.#runTurn([{ type: "text", text: parsed.text }, ...blocks]);
  }

  async #runTurn(blocks: Parameters<ChatSession["prompt"]>[0]): Promise<void> {
    const turn: TurnState = (this.#turn = { started: Date.now(), tick: 0, cancelling: false });
    const onSigint = () => this.#interrupt();
    process.on("SIGINT", onSigint);
    this.#input.onKeys((key) => this.#onKey(key));
    if (this.#term.tty) {
      turn.timer = setInterval(() => {
        turn.tick++;
        this.#transcriptView.render();
      }, 100);
    }
    try {
      await this.chat.prompt(blocks);
    } finally {
      clearInterval(turn.timer);
      process.off("SIGINT", onSigint);
      this.#turn = undefined;
      this.#userCancelled = turn.cancelling;
      this.#transcriptView.render();
    }
    if (this.#restartAfterTurn) await this.#restartIgnoringAgent();
  }

  /** The automatic restart after an ignored cancel; a failure is shown, and the chat ends as with a dead agent. */
  async #restartIgnoringAgent(): Promise<void> {
    this.#restartAfterTurn = false;
    if (this.#quitting) return;
    try {
      await this.restart();
    } catch (error) {
      this.print([
        this.paint.red(
          sanitize(`could not restart the agent: ${error instanceof Error ? error.message : String(error)}`),
        ),
      ]);
    }
  }

  #interrupt(): void {
    const turn = this.#turn;
    if (turn === undefined) return void (this.#lateInterrupt = true);
    if (turn.cancelling) {
      this.#quitting = true;
      this.print([this.paint.yellow("quitting")]);
      this.chat.connection.close("the user quit");
      return;
    }
    turn.cancelling = true;
    this.chat.cancel();
    this.#transcriptView.render();
  }

  /** A key pressed while a turn runs; returns whether it was taken (others are typed ahead). */
  #onKey(key: Key): boolean {
    if (key.ctrl && key.name === "c") {
      this.#interrupt();
      return true;
    }
    const ask = this.#asks[0];
    if (ask === undefined) return false;
    const choice = optionForKey(ask.request.options, key);
    if (choice === "cancel") this.#interrupt();
    else if (choice !== undefined) this.#answer(ask, choice);
    return true;
  }

  #answer(ask: PendingAsk, optionId: string): void {
    const option = ask.request.options.find((o) => o.optionId === optionId);
    const allow = option?.kind.startsWith("allow") ?? false;
    const what = ask.request.toolCall.title ?? ask.request.toolCall.toolCallId;
    this.print([
      (allow ? this.paint.green : this.paint.red)(
        sanitize(`${allow ? "✓" : "✗"} ${option?.name ?? optionId}: ${what}`),
      ),
    ]);
    ask.resolve(optionId);
  }

  /** Non-TTY: prints the first pending request and reads the answer from the next input line. */
  async #askNextByLine(): Promise<void> {
    const ask = this.#asks[0];
    if (ask === undefined) return;
    this.#transcriptView.render();
    this.print([
      ...this.#transcriptView.toolCard(ask.request.toolCall.toolCallId),
      ...renderPermission(ask.request, this.#view.width, this.paint, false),
    ]);
    const line = await this.#input.nextLine();
    if (!this.#asks.includes(ask)) return;
    if (line === undefined) return ask.resolve(null);
    const optionId = optionForAnswer(ask.request.options, line);
    if (optionId === undefined) {
      this.print([this.paint.red(`"${line}" is none of the options`)]);
      ask.resolve({ decision: "reject" });
      return;
    }
    this.#answer(ask, optionId);
  }

  #footer(): string[] {
    const turn = this.#turn;
    if (turn === undefined) return [];
    const lines: string[] = [];
    const ask = this.#asks[0];
    if (ask !== undefined) lines.push(...renderPermission(ask.request, this.#view.width, this.paint, true));
    else {
      const label = turn.cancelling ? "cancelling" : "working";
      lines.push(
        statusLine(
          {
            tick: turn.tick,
            elapsedMs: Date.now() - turn.started,
            label,
            cancelling: turn.cancelling,
            ...(this.#term.ascii ? { ascii: true } : {}),
          },
          this.paint,
        ),
      );
    }
    return lines;
  }

  #promptText(): string {
    const transcript = this.#chat?.transcript;
    const mode = transcript?.currentModeId;
    const modeName = transcript?.state.modes?.availableModes.find((m) => m.id === mode)?.name ?? mode;
    return `${modeName ? this.paint.dim(`[${sanitize(modeName)}] `) : ""}${this.paint.cyan("›")} `;
  }

  #complete(line: string): [string[], string] {
    const chat = this.#chat;
    const cwd = chat?.cwd ?? process.cwd();
    return complete(line, {
      slashCommands: chat?.transcript?.availableCommands?.map((command) => sanitize(command.name)) ?? [],
      localCommands: LOCAL_COMMANDS,
      listDir: (dir) => listDir(resolve(cwd, dir)),
    });
  }
}

function listDir(path: string): DirEntry[] {
  try {
    return readdirSync(path, { withFileTypes: true }).map((entry) => ({
      name: entry.name,
      directory: entry.isDirectory(),
    }));
  } catch {
    return [];
  }
}
