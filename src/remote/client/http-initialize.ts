/**
 * The Streamable HTTP `initialize`: POSTed without `Acp-Connection-Id`, answered 200 with the JSON-RPC response
 * in the body and the connection id in the `Acp-Connection-Id` header. What the answer means for the link is
 * returned as an outcome; the link acts on it.
 *
 * Spec: https://agentclientprotocol.com/rfds/streamable-http-websocket-transport (connection initialization)
 */
import { TransportFailedError } from "../../jsonrpc/local-errors.js";
import { isResponseMessage, type AnyResponse, type JsonRpcId } from "../../jsonrpc/messages.js";
import type { RequestError } from "../../jsonrpc/request-error.js";
import {
  CONNECTION_FATAL_STATUSES,
  failureAsRequestError,
  failureAsTransportError,
  readFailure,
  readText,
  type HttpEndpoint,
} from "./http-endpoint.js";
import { HEADER_CONNECTION_ID, idKey, JSON_MIME_TYPE } from "../http-protocol.js";

/** What came of an `initialize` POST. */
export type InitializeOutcome =
  /** The agent answered (a result or its own error); `connectionId` is set when it is a result. */
  | { kind: "answered"; response: AnyResponse; text: string; connectionId: string | undefined }
  /** The server refused it: the request gets `error`; `fatal` ends the transport too. */
  | { kind: "refused"; error: RequestError; fatal: Error | undefined }
  /** The answer is over the size limit. */
  | { kind: "too_large"; bytes: number; head: string }
  /** The transport is unusable: the request gets `answer` (when there is one to give), then the link ends. */
  | { kind: "failed"; error: Error; answer: RequestError | undefined };

/** POSTs `text` (the `initialize` request `id`) and reads the answer. Rejects only when `signal` aborts. */
export async function postInitialize(
  endpoint: HttpEndpoint,
  id: JsonRpcId,
  text: string,
  maxBytes: number,
  signal: AbortSignal,
): Promise<InitializeOutcome> {
  let response: Response;
  try {
    response = await endpoint.request("POST", { "Content-Type": JSON_MIME_TYPE, Accept: JSON_MIME_TYPE }, text, signal);
  } catch (error) {
    if (signal.aborted) throw error;
    return { kind: "failed", error: error as Error, answer: undefined };
  }
  if (!response.ok) {
    const failure = await readFailure(response);
    const body = jsonOf(failure.body);
    const fatal = CONNECTION_FATAL_STATUSES.has(failure.status)
      ? failureAsTransportError(failure, "initialize")
      : undefined;
    // The official server answers a failed initialize with a JSON-RPC error for it: that is the answer, said with
    // its status ("HTTP 502 Bad Gateway: the agent failed to start: ...").
    if (fatal === undefined && isResponseMessage(body) && idKey(body.id) === idKey(id) && "error" in body) {
      const status = `HTTP ${failure.status}${failure.statusText ? ` ${failure.statusText}` : ""}`;
      const response = { ...body, error: { ...body.error, message: `${status}: ${body.error.message}` } };
      return { kind: "answered", response, text: JSON.stringify(response), connectionId: undefined };
    }
    return { kind: "refused", error: failureAsRequestError(failure, "initialize"), fatal };
  }
  const connectionId = response.headers.get(HEADER_CONNECTION_ID);
  let body: string;
  try {
    body = await readText(response, maxBytes);
  } catch (error) {
    const { bytes, head } = error as { bytes?: number; head?: string };
    if (bytes !== undefined) return { kind: "too_large", bytes, head: head ?? "" };
    if (signal.aborted) throw error;
    return {
      kind: "failed",
      error: new TransportFailedError(`The ACP server's answer to initialize broke off: ${String(error)}`, {
        cause: error,
      }),
      answer: undefined,
    };
  }
  const value = jsonOf(body);
  const problem =
    connectionId === null || connectionId === ""
      ? `it has no ${HEADER_CONNECTION_ID} header`
      : !isResponseMessage(value) || idKey(value.id) !== idKey(id)
        ? "its body is not the JSON-RPC response to that initialize"
        : undefined;
  if (problem !== undefined) {
    const error = new TransportFailedError(
      `The ACP server's 200 answer to initialize is not usable: ${problem}. Is ${endpoint.url} an ACP endpoint?`,
      { status: response.status },
    );
    const answer = failureAsRequestError(
      { status: response.status, statusText: "", body: body.slice(0, 512) },
      "initialize",
    );
    answer.message = error.message;
    return { kind: "failed", error, answer };
  }
  const answered = value as AnyResponse;
  return {
    kind: "answered",
    response: answered,
    text: body,
    connectionId: "error" in answered ? undefined : connectionId!,
  };
}

/** The JSON value of `text`, or undefined when it is not JSON. */
export function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
