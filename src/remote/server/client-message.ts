/**
 * One client message as the server reads it (a POST body or a WebSocket text frame): parsed, checked to be a single
 * JSON-RPC object with a valid id, and the exact text of that id kept when a JS number cannot hold it (beyond 2^53),
 * so it travels to the agent and back unchanged, as it does over stdio. What is not a message is refused at once,
 * with the JSON-RPC error a stdio agent would give: -32700 for bad JSON, -32600 for a batch, a non-object or an id
 * that is not a string, a finite number or null (an object, `true`, `1e400`).
 *
 * Spec: https://www.jsonrpc.org/specification (Request object: "id ... MUST contain a String, Number, or NULL value")
 */
import { rawIdOf } from "../../jsonrpc/envelope-scanner.js";
import { isRecord } from "../../jsonrpc/messages.js";
import { serializeMessage } from "../../transports/serialize.js";
import { idKey } from "../http-protocol.js";

/** A client message read, or why it is not one (a JSON-RPC error code and message, and the HTTP status for it). */
export type ClientMessage =
  | { ok: true; message: Record<string, unknown>; rawId: string | undefined }
  | {
      ok: false;
      reason: "parse" | "batch" | "not-an-object" | "invalid-id";
      status: number;
      code: number;
      message: string;
    };

/** Whether `id` is a JSON-RPC id: a string, a finite number or null. */
export function isValidId(id: unknown): boolean {
  return id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/**
 * The key a request is tracked under: its exact text for a number beyond what JS holds (so two ids that round to
 * the same double stay apart), else `idKey`.
 */
export function keyOfId(id: unknown, rawId: string | undefined): string | undefined {
  return rawId !== undefined && typeof id === "number" ? `n:${rawId}` : idKey(id);
}

/** Reads one message from `text`; `unit` names what carried it ("POST", "frame") in the refusals. */
export function readClientMessage(text: string, unit: string): ClientMessage {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      reason: "parse",
      status: 400,
      code: -32700,
      message: `Parse error: the ${unit} is not valid JSON`,
    };
  }
  if (Array.isArray(value))
    return {
      ok: false,
      reason: "batch",
      status: 501,
      code: -32600,
      message: `Invalid Request: JSON-RPC batches are not supported by ACP; send one message per ${unit}`,
    };
  if (!isRecord(value))
    return {
      ok: false,
      reason: "not-an-object",
      status: 400,
      code: -32600,
      message: "Invalid Request: a JSON-RPC message is a JSON object",
    };
  if ("id" in value && !isValidId(value.id)) {
    return {
      ok: false,
      reason: "invalid-id",
      status: 400,
      code: -32600,
      message:
        "Invalid Request: the id must be a string, a number or null (JSON-RPC 2.0); this one is " +
        describeInvalidId(value.id),
    };
  }
  return { ok: true, message: value, rawId: rawIdOf(value, text) };
}

function describeInvalidId(id: unknown): string {
  if (typeof id === "number") return "a number out of range (it reads as infinity)";
  if (Array.isArray(id)) return "an array";
  return typeof id === "object" ? "an object" : `a ${typeof id}`;
}

/** The JSON text of an error answer to the request `id` (written as `rawId` when given). */
export function errorAnswerText(
  id: unknown,
  rawId: string | undefined,
  error: { code: number; message: string; data?: unknown },
): string {
  return serializeMessage({ jsonrpc: "2.0", id, error }, Number.MAX_SAFE_INTEGER, rawId);
}
