/**
 * The prompt turn of `acp exec`, through the client toolkit's `TurnGuard`: an agent that answers `end_turn` after a
 * cancel is reported cancelled, one that ignores a cancel has `CANCEL_GRACE_MS` before the turn ends here (and the
 * caller stops it), and updates after the answer stay with the turn.
 */
import { ConnectionClosedError } from "@acpkit/sdk";
import type { GuardedPromptResponse, Transcript, TurnGuard } from "@acpkit/sdk/client-toolkit";

/** How long the agent has to end the turn after a cancel (Ctrl-C or --timeout) before it is stopped. */
export const CANCEL_GRACE_MS = 2000;

/** How the turn ended: the guarded answer, or the error the prompt failed with. */
export interface TurnOutcome {
  response?: GuardedPromptResponse;
  error?: unknown;
  /** The turn was ended here because the agent ignored a cancel. */
  endedLocally: boolean;
}

/** Runs one turn with `text` as the prompt and folds its end into `transcript`. Never rejects. */
export async function runTurn(input: {
  guard: TurnGuard;
  transcript: Transcript;
  sessionId: string;
  text: string;
}): Promise<TurnOutcome> {
  const prompt = [{ type: "text" as const, text: input.text }];
  input.transcript.beginTurn(prompt);
  try {
    const response = await input.guard.prompt({ sessionId: input.sessionId, prompt });
    input.transcript.endTurn(response.stopReason);
    return { response, endedLocally: response.endedLocally === true };
  } catch (error) {
    input.transcript.failTurn(error);
    return { error, endedLocally: false };
  }
}

/**
 * An agent's error for the user: its message, and the detail agents put in `data` (`data.details` as the official
 * SDKs do, or `data.message`, or a string) when the message alone says little ("Internal error").
 */
export function agentErrorText(error: unknown): string {
  // A closed connection's advice ("Open a new connection to continue") is for library users, not this one-shot run.
  if (error instanceof ConnectionClosedError) return `the connection to the agent closed: ${error.detail}`;
  const message = error instanceof Error ? error.message : String(error);
  const data = (error as { data?: unknown } | null)?.data;
  const detail =
    typeof data === "string"
      ? data
      : typeof data === "object" && data !== null
        ? [(data as { details?: unknown }).details, (data as { message?: unknown }).message].find(
            (value): value is string => typeof value === "string",
          )
        : undefined;
  return detail !== undefined && detail !== "" && !message.includes(detail) ? `${message} (${detail})` : message;
}
