/**
 * What `acp exec` shows, whatever the format: the run calls a renderer at each step.
 */
import type { Transcript } from "@acpkit/sdk/client-toolkit";
import type {
  Implementation,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
} from "@acpkit/sdk";

/** The session the turn runs in. */
export interface SessionStarted {
  sessionId: string;
  /** How it was obtained. */
  how: "new" | "load" | "resume";
  agent: Implementation | null;
  protocolVersion: number;
}

/**
 * Where a `session/update` stands: `before` the prompt was sent (setup, a loaded session's history), in the `turn`,
 * or `late`: after the agent answered the prompt (it belongs to that turn all the same).
 */
export type UpdatePlacement = "before" | "turn" | "late";

/** How the run ended. */
export interface ExecResult {
  exitCode: number;
  sessionId?: string;
  stopReason?: string;
  /** What went wrong (startup, agent error), as shown to the user. */
  error?: string;
  /** What the agent did wrong without failing the run (protocol violations), as shown to the user. */
  warnings?: string[];
  transcript?: Transcript;
}

/** A format of `acp exec`'s output. */
export interface ExecRenderer {
  /** The session is ready (before the prompt is sent). */
  session(started: SessionStarted): void;
  /** A `session/update` of our session, and where it stands. */
  update(notification: SessionNotification, placement: UpdatePlacement): void;
  /** A permission request and the policy's answer. */
  permission(request: RequestPermissionRequest, response: RequestPermissionResponse, policy: string): void;
  /** A line the agent printed on stderr (only with --verbose). */
  stderr(line: string): void;
  /** A diagnostic for the user (stderr in every format). */
  note(text: string): void;
  /** The run is over; print the summary. */
  finish(result: ExecResult): void;
}
