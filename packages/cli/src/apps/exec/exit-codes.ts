/**
 * `acp exec` exit codes: how the turn ended, so a script can tell a refusal from a crash.
 *
 * | code | meaning                                                                                  |
 * | ---- | ---------------------------------------------------------------------------------------- |
 * | 0    | `end_turn`: the agent finished the turn                                                  |
 * | 1    | agent error: `session/prompt` failed, or the agent died or closed the connection mid-turn, |
 * |      | or it ended the turn `cancelled` unasked (a remote server shutting down cancels its turns)  |
 * | 2    | usage error: a bad flag, an unreadable prompt, MCP config or rules file                  |
 * | 3    | startup failure: the agent could not be started, did not answer `initialize` in time, or |
 * |      | could not set up the session (`session/new`, `load`, `resume`) within --startup-timeout, |
 * |      | or answered a protocol version this client does not speak                                |
 * | 4    | authentication needed or failed (`auth_required`, `authenticate` or terminal login failed) |
 * | 5    | `refusal`: the agent refused to continue                                                 |
 * | 6    | `max_tokens`: the model's token limit was reached                                        |
 * | 7    | `max_turn_requests`: the turn's request limit was reached                                |
 * | 124  | the run's bound (--timeout) ran out: the turn was cancelled and the agent stopped         |
 * | 129  | SIGHUP (the terminal went away): the agent was stopped                                    |
 * | 130  | `cancelled`: Ctrl-C cancelled the turn, or the agent reported it cancelled                |
 * | 143  | SIGTERM: the agent was stopped (128 + the signal's number, as a shell reports it)         |
 */
import type { StopReason } from "@acpkit/sdk";

export const ExitCode = {
  endTurn: 0,
  agentError: 1,
  usage: 2,
  startup: 3,
  auth: 4,
  refusal: 5,
  maxTokens: 6,
  maxTurnRequests: 7,
  timedOut: 124,
  hangup: 129,
  cancelled: 130,
  terminated: 143,
} as const;

export type ExitCodeValue = (typeof ExitCode)[keyof typeof ExitCode];

const BY_STOP_REASON: Readonly<Record<StopReason, ExitCodeValue>> = {
  end_turn: ExitCode.endTurn,
  refusal: ExitCode.refusal,
  max_tokens: ExitCode.maxTokens,
  max_turn_requests: ExitCode.maxTurnRequests,
  cancelled: ExitCode.cancelled,
};

/** The exit code of a run ended by `signal`: 130 for SIGINT (Ctrl-C), 143 for SIGTERM, 129 for SIGHUP. */
export function exitCodeForSignal(signal: NodeJS.Signals | undefined): ExitCodeValue {
  if (signal === "SIGTERM") return ExitCode.terminated;
  if (signal === "SIGHUP") return ExitCode.hangup;
  return ExitCode.cancelled;
}

/** The exit code of a stop reason; a stop reason this version does not know is an agent error. */
export function exitCodeFor(stopReason: string): ExitCodeValue {
  return (BY_STOP_REASON as Record<string, ExitCodeValue>)[stopReason] ?? ExitCode.agentError;
}
