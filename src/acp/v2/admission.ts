/**
 * Protocol v2's admission rules, for each side, over an `InitializationState`:
 * - Agent: request ids must be strings or integers; `initialize` only when it may start (first, or a repeat before
 *   any other request); other requests only once initialized (-32600 otherwise, never held); notifications ignored
 *   until an exchange completed, held while a repeat is in progress.
 * - Client: the agent's requests and notifications wait for an `initialize` in progress and are refused (or ignored)
 *   before one; the agent's `initialize` result must choose protocol version 2, or the connection cannot go on.
 *
 * Spec: https://agentclientprotocol.com/protocol/v2/initialization
 */
import { ProtocolVersionError, RequestError, answerWithNullId, isRecord, type JsonRpcId } from "../../jsonrpc/index.js";
import type { CompiledSchema } from "../../protocol/validation.js";
import type { Admission, Held } from "../admission.js";
import { InitializationState, notInitialized } from "./initialization.js";

/** The protocol version v2 apps speak. */
export const V2 = 2;

/** The largest `protocolVersion` (a uint16 in the schema). */
const MAX_PROTOCOL_VERSION = 0xffff;

/** What stands in for a missing or malformed `info` in an `initialize` written for a newer version. */
export const UNKNOWN_IMPLEMENTATION = Object.freeze({ name: "unknown", version: "unknown" });

/** v2 request ids are strings or integers (not null, not fractions). */
export function isV2RequestId(id: JsonRpcId): boolean {
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id));
}

/** A request whose id v2 does not allow is refused, answered with `id: null` (its id cannot be used). */
function checkRequestId(id: JsonRpcId): void {
  if (!isV2RequestId(id))
    throw answerWithNullId(RequestError.invalidRequest(undefined, "ACP v2 request IDs must be strings or integers"));
}

/** The `protocolVersion` of `initialize` params, or a -32602 saying it is not a valid version. */
export function requestedVersion(params: unknown): number {
  const version = isRecord(params) ? params.protocolVersion : undefined;
  if (typeof version !== "number" || !Number.isInteger(version) || version < 0 || version > MAX_PROTOCOL_VERSION) {
    throw RequestError.invalidParams(undefined, "initialize.protocolVersion must be a valid ACP protocol version");
  }
  return version;
}

/** Holds a request until the attempt in progress ended: released once initialized, refused (-32600) otherwise. */
function holdRequest(state: InitializationState, method: string): Held<void> {
  return {
    then(onRelease, onRefuse) {
      state.whenAttemptEnds(() => (state.phase === "initialized" ? onRelease() : onRefuse(notInitialized(method))));
    },
  };
}

/** Holds a notification until the attempt in progress ended: handled once initialized, ignored otherwise. */
function holdNotification(state: InitializationState): Held<boolean> {
  return {
    then(onRelease) {
      state.whenAttemptEnds(() => onRelease(state.phase === "initialized"));
    },
  };
}

/**
 * What an `initialize` exchange keeps of `value`: its parse under `schema` (defaults filled in, as the peer reads
 * it), or a copy of it as it is when it does not parse (it was sent or received anyway, and reported).
 */
export function parsedOrCopy(schema: CompiledSchema<unknown> | undefined, value: unknown): unknown {
  try {
    if (schema) return schema.parse(structuredClone(value));
  } catch {
    // kept as it is
  }
  return structuredClone(value);
}

/** Protocol v2's admission, with the initialization lifecycle it follows (the connection's state shares it). */
export interface V2Admission extends Admission {
  readonly state: InitializationState;
}

/** The agent side's rules. The `initialize` params themselves are checked by `initializeParamsParser`. */
export function agentAdmission(
  state: InitializationState,
  schemas: Readonly<Record<string, CompiledSchema<unknown>>>,
): V2Admission {
  return {
    state,
    request(method, id) {
      checkRequestId(id);
      if (method === "initialize") {
        const error = state.beginError();
        if (error) throw error;
        return;
      }
      // Other requests never wait for an `initialize` in flight: the draft says to refuse them until it completed.
      if (state.phase !== "initialized") throw notInitialized(method);
      state.noteRequest();
    },
    notification() {
      if (!state.hasInitialized) return false;
      if (state.phase === "initialized") return true;
      return holdNotification(state);
    },
    initializeAnswered(_params, result) {
      const version = isRecord(result) ? result.protocolVersion : undefined;
      if (version !== V2) {
        throw RequestError.invalidRequest(
          { expectedProtocolVersion: V2, receivedProtocolVersion: version },
          `The v2 API only supports protocol version ${V2}`,
        );
      }
      state.complete(parsedOrCopy(schemas.InitializeResponse, result));
    },
    initializeFailed() {
      state.failAttempt();
    },
  };
}

/**
 * The `initialize` params parser of a v2 agent: refuses a version below 2 (-32022, or -32600 for a repeat, which must
 * keep the version chosen), reads a request written for a newer version leniently (what does not parse under v2 is
 * dropped, a missing or malformed `info` becomes `{ name: "unknown", version: "unknown" }`), answers with
 * `protocolVersion: 2` in the parsed params, and starts the attempt.
 */
export function initializeParamsParser(
  schemas: Readonly<Record<string, CompiledSchema<unknown>>>,
  state: InitializationState,
) {
  const request = schemas.InitializeRequest!;
  const implementation = schemas.Implementation!;
  return (raw: unknown): unknown => {
    const version = requestedVersion(raw);
    if (version < V2) {
      if (state.phase === "initialized") {
        throw RequestError.invalidRequest(
          undefined,
          `a repeated initialize must request protocol version ${V2} or later`,
        );
      }
      throw RequestError.unsupportedProtocolVersion(version, [V2]);
    }
    const params = raw as Record<string, unknown>;
    const parsed =
      version === V2
        ? request.parse(structuredClone(params))
        : parseNewerInitialize(params, request, implementation).request;
    const normalized = { ...(parsed as Record<string, unknown>), protocolVersion: V2 };
    state.begin(normalized);
    return normalized;
  };
}

/**
 * An `initialize` request written for a newer version than 2, read as v2: keeps what parses under v2 and drops the
 * rest; a missing or malformed `info` becomes `{ name: "unknown", version: "unknown" }` (`hasInfo` says whether the
 * client's own was kept).
 */
export function parseNewerInitialize(
  params: Record<string, unknown>,
  request: CompiledSchema<unknown>,
  implementation: CompiledSchema<unknown>,
): { request: Record<string, unknown>; hasInfo: boolean } {
  const hasInfo = implementation.is(params.info);
  return {
    request: parseNewer(params, request, hasInfo ? params.info : UNKNOWN_IMPLEMENTATION) as Record<string, unknown>,
    hasInfo,
  };
}

function parseNewer(params: Record<string, unknown>, request: CompiledSchema<unknown>, info: unknown): unknown {
  const attempts = [
    { ...params, info },
    { ...params, info, capabilities: {} },
    { protocolVersion: V2, info, ...(isRecord(params._meta) ? { _meta: params._meta } : {}) },
  ];
  for (const attempt of attempts) {
    try {
      return request.parse(structuredClone({ ...attempt, protocolVersion: V2 }));
    } catch {
      // try with less
    }
  }
  return { protocolVersion: V2, info };
}

/** The client side's rules. */
export function clientAdmission(state: InitializationState): V2Admission {
  return {
    state,
    request(method, id) {
      checkRequestId(id);
      if (state.phase === "initialized") return;
      if (state.phase === "initializing") return holdRequest(state, method);
      throw notInitialized(method);
    },
    notification() {
      if (state.phase === "initialized") return true;
      if (state.phase !== "initializing") return false;
      return holdNotification(state);
    },
    initializeResult(result) {
      const version = isRecord(result) ? result.protocolVersion : undefined;
      if (version !== V2) throw new ProtocolVersionError(V2, version);
      state.complete(result);
    },
  };
}
