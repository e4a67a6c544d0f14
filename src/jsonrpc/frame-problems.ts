import type { FrameProblem } from "./link.js";
import { ResponseLostError } from "./local-errors.js";
import type { Logger } from "./logger.js";
import type { ErrorResponse, JsonRpcId } from "./messages.js";
import type { PendingRequest } from "./outgoing.js";
import { answerOversized } from "./oversized.js";
import { RequestError } from "./request-error.js";

/** What answering a frame problem needs from the engine. */
export interface ProblemActions {
  logger: Logger;
  /** Sends the error response `error` for id `id` (its exact id text `rawId` when given). */
  sendError(id: JsonRpcId, error: ErrorResponse, rawId?: string): void;
  /** Removes and returns this side's pending request `id`, or undefined when none waits on it. */
  take(id: JsonRpcId): PendingRequest | undefined;
}

/**
 * Answers what the link could not turn into a message: a line that is not JSON at all is skipped (a peer printing
 * logs to stdout), malformed JSON is answered with -32700, responses the transport lost reject their requests with
 * `ResponseLostError`, and a frame over the size limit is answered as `answerOversized` says.
 */
export function answerProblem(problem: FrameProblem, actions: ProblemActions): void {
  if (problem.kind === "parse") {
    if (!problem.looksLikeJson) {
      actions.logger.warn("skipped a line from the peer that is not JSON (is it printing logs to stdout?)", {
        line: problem.preview,
      });
      return;
    }
    actions.logger.warn("the peer sent malformed JSON", { detail: problem.detail, line: problem.preview });
    return actions.sendError(null, RequestError.parseError(undefined, problem.detail).toErrorResponse());
  }
  if (problem.kind === "lost") {
    for (const id of problem.ids) {
      const pending = actions.take(id);
      pending?.reject(new ResponseLostError(pending.method, problem.detail, problem.cause));
    }
    return;
  }
  answerOversized(problem, {
    logger: actions.logger,
    refuse: (id, error, rawId) => actions.sendError(id, error, rawId),
    reject: (id, error) => actions.take(id)?.reject(error),
  });
}
