/**
 * Ctrl-C during `acp exec`:
 * - the first SIGINT during a prompt turn cancels it (`cancel`: the caller sends `session/cancel`, answers pending
 *   permission requests `cancelled`, and stops the agent if it does not end the turn within its grace period);
 * - a second SIGINT stops the agent (the launcher closes its stdin, then SIGTERMs and SIGKILLs its process group);
 * - SIGINT outside a turn (starting up), SIGTERM and SIGHUP stop the agent at once.
 * The agent runs in its own process group, so the terminal's Ctrl-C reaches only us: we decide.
 */

/** What the interrupt handler does. */
export interface InterruptActions {
  /**
   * Cancels the running turn, bounding the agent's answer itself; returns false when no turn is running (then the
   * agent is stopped at once).
   */
  cancel(): boolean;
  /** Stops the agent. */
  stop(reason: string): void;
  /** Tells the user what happens (stderr). */
  note(text: string): void;
}

/** The installed handler. */
export interface InterruptHandler {
  /** Whether an interrupt (or SIGTERM/SIGHUP) was received. */
  readonly interrupted: boolean;
  /** Whether the agent was stopped because of one. */
  readonly stopped: boolean;
  /** The signal that stopped the run, if any. */
  readonly signal: NodeJS.Signals | undefined;
  /** Removes the handlers. */
  dispose(): void;
}

/** Installs SIGINT/SIGTERM/SIGHUP handlers for the duration of a run. */
export function handleInterrupts(actions: InterruptActions): InterruptHandler {
  let interrupted = false;
  let stopped = false;
  let signal: NodeJS.Signals | undefined;
  const stop = (reason: string) => {
    if (stopped) return;
    stopped = true;
    actions.note(reason);
    actions.stop(reason);
  };
  const onInterrupt = () => {
    signal ??= "SIGINT";
    if (interrupted) return stop("acp exec: interrupted again; stopping the agent");
    interrupted = true;
    if (!actions.cancel()) return stop("acp exec: interrupted; stopping the agent");
    actions.note(`acp exec: cancelling the turn (press Ctrl-C again to stop the agent now)`);
  };
  const onTerminate = (name: NodeJS.Signals) => () => {
    signal ??= name;
    interrupted = true;
    stop(`acp exec: received ${name}; stopping the agent`);
  };
  const onTerm = onTerminate("SIGTERM");
  const onHup = onTerminate("SIGHUP");
  process.on("SIGINT", onInterrupt);
  process.on("SIGTERM", onTerm);
  process.on("SIGHUP", onHup);
  return {
    get interrupted() {
      return interrupted;
    },
    get stopped() {
      return stopped;
    },
    get signal() {
      return signal;
    },
    dispose() {
      process.off("SIGINT", onInterrupt);
      process.off("SIGTERM", onTerm);
      process.off("SIGHUP", onHup);
    },
  };
}
