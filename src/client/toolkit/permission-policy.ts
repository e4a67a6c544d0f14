/**
 * Permission policies: how a client answers `session/request_permission`. A policy is a function; factories build
 * the common ones and wrappers add memory and a timeout. `PermissionBroker` (permission-broker.ts) runs them.
 *
 * See protocol docs: [Requesting Permission](https://agentclientprotocol.com/protocol/tool-calls#requesting-permission)
 */
import type {
  PermissionOption,
  PermissionOptionKind,
  RequestPermissionRequest,
  RequestPermissionResponse,
  ToolKind,
} from "../../protocol/index.js";

/** What a policy gets besides the request. */
export interface PermissionContext {
  /** Aborted when the answer is no longer wanted (the turn was cancelled, a timeout fired, the broker closed). */
  signal: AbortSignal;
}

/**
 * Answers one permission request. The answer must select one of `request.options` by id, or be `cancelled`
 * (which the spec reserves for a cancelled turn). Policies should stop work when `context.signal` aborts.
 */
export type PermissionPolicy = (
  request: RequestPermissionRequest,
  context: PermissionContext,
) => Promise<RequestPermissionResponse>;

/** A decision, before it is mapped onto the agent's options. */
export type PermissionDecision = "allow" | "reject";

/** The `cancelled` outcome. */
export const CANCELLED_RESPONSE: RequestPermissionResponse = Object.freeze({
  outcome: Object.freeze({ outcome: "cancelled" as const }),
});

/** Tool kinds `allowReads` allows: they only look. */
export const READ_KINDS: readonly ToolKind[] = ["read", "search", "think", "fetch"];

/** Selects the option with this id. */
export function selectOption(optionId: string): RequestPermissionResponse {
  return { outcome: { outcome: "selected", optionId } };
}

/** The first offered option whose kind is the first of `kinds` offered, if any. */
export function findOption(
  options: readonly PermissionOption[],
  kinds: readonly PermissionOptionKind[],
): PermissionOption | undefined {
  for (const kind of kinds) {
    const option = options.find((candidate) => candidate.kind === kind);
    if (option !== undefined) return option;
  }
  return undefined;
}

/**
 * Maps a decision onto the agent's own options:
 * - `allow`: `allow_once`, else `allow_always` (once first, so the client's policy stays the one deciding). If the
 *   agent offers no allow option at all, allowing is impossible: the answer is the `reject` one.
 * - `reject`: `reject_once`, else `reject_always`; if the agent offers no reject option, `cancelled` (fail closed:
 *   never an allow).
 */
export function decide(request: RequestPermissionRequest, decision: PermissionDecision): RequestPermissionResponse {
  if (decision === "allow") {
    const option = findOption(request.options, ["allow_once", "allow_always"]);
    if (option !== undefined) return selectOption(option.optionId);
  }
  return failClosed(request);
}

/** The fail-closed answer: `reject_once`, else `reject_always`, else `cancelled`. */
export function failClosed(request: RequestPermissionRequest): RequestPermissionResponse {
  const option = findOption(request.options, ["reject_once", "reject_always"]);
  return option === undefined ? CANCELLED_RESPONSE : selectOption(option.optionId);
}

/** Whether `response` is a valid answer to `request`: `cancelled`, or one of its option ids selected. */
export function isValidAnswer(
  request: RequestPermissionRequest,
  response: unknown,
): response is RequestPermissionResponse {
  const outcome = (response as RequestPermissionResponse | undefined)?.outcome;
  if (outcome?.outcome === "cancelled") return true;
  return outcome?.outcome === "selected" && request.options.some((option) => option.optionId === outcome.optionId);
}

/** The kind of the option a response selected (undefined for `cancelled` or an unknown id). */
export function selectedKind(
  request: RequestPermissionRequest,
  response: RequestPermissionResponse,
): PermissionOptionKind | undefined {
  const outcome = response.outcome;
  if (outcome.outcome !== "selected") return undefined;
  return request.options.find((option) => option.optionId === outcome.optionId)?.kind;
}

/** Allows everything (see `decide` for which option). */
export function allowAll(): PermissionPolicy {
  return async (request) => decide(request, "allow");
}

/** Rejects everything (see `decide` for which option). */
export function denyAll(): PermissionPolicy {
  return async (request) => decide(request, "reject");
}

/**
 * Allows tool calls of the read-only kinds (`read`, `search`, `think`, `fetch`) and hands the rest to `otherwise`
 * (default: reject). A request whose tool call names no kind is not a read (the schema default kind is `other`).
 */
export function allowReads(otherwise: PermissionPolicy = denyAll()): PermissionPolicy {
  return async (request, context) => {
    const kind = request.toolCall.kind ?? "other";
    return READ_KINDS.includes(kind) ? decide(request, "allow") : otherwise(request, context);
  };
}

/**
 * What an interactive `ask` callback may answer: an option id, a whole response, a decision (mapped with `decide`),
 * or `null`/`undefined` for `cancelled` (the user dismissed the prompt).
 */
export type AskAnswer = string | RequestPermissionResponse | { decision: PermissionDecision } | null | undefined;

/**
 * Asks a person through `ask` (a dialog, a terminal prompt). `ask` gets the request and the context; it should close
 * its prompt when `context.signal` aborts (the answer is then no longer used). An option id not offered by the agent
 * is answered fail-closed (see `failClosed`).
 */
export function interactive(
  ask: (request: RequestPermissionRequest, context: PermissionContext) => AskAnswer | Promise<AskAnswer>,
): PermissionPolicy {
  return async (request, context) => {
    const answer = await ask(request, context);
    if (answer == null) return CANCELLED_RESPONSE;
    if (typeof answer === "string")
      return request.options.some((option) => option.optionId === answer) ? selectOption(answer) : failClosed(request);
    if ("decision" in answer) return decide(request, answer.decision);
    return isValidAnswer(request, answer) ? answer : failClosed(request);
  };
}

/** A policy that remembers `allow_always` / `reject_always` choices; see `withMemory`. */
export interface MemoryPolicy extends PermissionPolicy {
  /** The remembered decision for a session and tool kind. */
  remembered(sessionId: string, kind: ToolKind): PermissionDecision | undefined;
  /** Forgets one session's choices, or every session's. */
  forget(sessionId?: string): void;
}

/**
 * Remembers "always" choices per session and tool kind (a request without a kind counts as `other`).
 *
 * - When the inner policy's answer selects an `allow_always` or `reject_always` option, that decision is remembered
 *   for the request's session and tool kind.
 * - A later request of the same session and kind is answered without the inner policy, with the agent's own option
 *   of the matching kind: `allow_always` (else `allow_once`) for a remembered allow, `reject_always` (else
 *   `reject_once`) for a remembered reject. If the agent offers neither option of that family, the memory does not
 *   apply and the inner policy is asked (a remembered allow is never turned into something else by guessing).
 */
export function withMemory(policy: PermissionPolicy): MemoryPolicy {
  const memory = new Map<string, Map<ToolKind, PermissionDecision>>();
  const remembered = (sessionId: string, kind: ToolKind) => memory.get(sessionId)?.get(kind);
  const wrapped = async (
    request: RequestPermissionRequest,
    context: PermissionContext,
  ): Promise<RequestPermissionResponse> => {
    const kind = request.toolCall.kind ?? "other";
    const decision = remembered(request.sessionId, kind);
    if (decision !== undefined) {
      const kinds: PermissionOptionKind[] =
        decision === "allow" ? ["allow_always", "allow_once"] : ["reject_always", "reject_once"];
      const option = findOption(request.options, kinds);
      if (option !== undefined) return selectOption(option.optionId);
    }
    const response = await policy(request, context);
    const chosen = selectedKind(request, response);
    if (chosen === "allow_always" || chosen === "reject_always") {
      let kinds = memory.get(request.sessionId);
      if (kinds === undefined) memory.set(request.sessionId, (kinds = new Map()));
      kinds.set(kind, chosen === "allow_always" ? "allow" : "reject");
    }
    return response;
  };
  return Object.assign(wrapped, {
    remembered,
    forget(sessionId?: string) {
      if (sessionId === undefined) memory.clear();
      else memory.delete(sessionId);
    },
  });
}

/** Thrown inside a policy's signal when `withTimeout` gives up on it. */
export class PermissionTimeoutError extends Error {
  override readonly name = "PermissionTimeoutError";
  constructor(readonly ms: number) {
    super(`No permission decision within ${ms} ms.`);
  }
}

/**
 * Gives `policy` at most `ms` milliseconds. On timeout the inner policy's signal aborts (reason: a
 * `PermissionTimeoutError`) and the answer fails closed: `reject_once`, else `reject_always`, else `cancelled`.
 * A policy that throws also fails closed; so does an answer that names an option the agent did not offer.
 */
export function withTimeout(policy: PermissionPolicy, ms: number): PermissionPolicy {
  return async (request, context) => {
    const inner = new AbortController();
    const onAbort = () => inner.abort(context.signal.reason);
    if (context.signal.aborted) onAbort();
    else context.signal.addEventListener("abort", onAbort, { once: true });
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<RequestPermissionResponse>((resolve) => {
      timer = setTimeout(() => {
        inner.abort(new PermissionTimeoutError(ms));
        resolve(failClosed(request));
      }, ms);
    });
    const answered = Promise.resolve()
      .then(() => policy(request, { ...context, signal: inner.signal }))
      .then(
        (response) => (isValidAnswer(request, response) ? response : failClosed(request)),
        () => failClosed(request),
      );
    try {
      return await Promise.race([answered, timedOut]);
    } finally {
      clearTimeout(timer);
      context.signal.removeEventListener("abort", onAbort);
    }
  };
}
