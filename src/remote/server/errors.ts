/**
 * Why an `initialize` could not be answered, with the HTTP status the client gets: 502 (the agent failed or ended
 * before answering), 504 (it did not answer in time), 499 (the client gave up first), 503 (the server is full or
 * closing), 500 (the agent could not even be connected).
 */
export class InitializeFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "InitializeFailure";
  }
}

/** The one-line text of any error, for logs and HTTP bodies. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The JSON-RPC error message of a failed `initialize`: what failed, and why (502: the agent did not start). */
export function initializeFailedText(failure: InitializeFailure): string {
  return failure.status === 502
    ? `the agent failed to start: ${failure.message}`
    : `initialize failed: ${failure.message}`;
}
