/**
 * The options of the Streamable HTTP link (`createHttpStream`, `openRemoteStream`), their defaults and their checks.
 */
import type { Logger } from "../../jsonrpc/logger.js";
import type { BackpressureOptions } from "../../transports/backpressure.js";
import type { HttpEndpointOptions } from "./http-endpoint.js";
import { DEFAULT_MAX_RESUME_ATTEMPTS } from "./http-event-streams.js";

/** Options of the Streamable HTTP link. */
export interface HttpLinkOptions extends HttpEndpointOptions, BackpressureOptions {
  /** Largest message accepted or sent, in UTF-8 bytes. Default 32 MiB. */
  maxMessageBytes?: number;
  /** `drain()` waits while more than this many UTF-16 units of messages are queued for POSTing. Default 256 Ki. */
  writeHighWaterMark?: number;
  /** How long `close()` waits for the DELETE. Default 5000 ms. */
  closeTimeoutMs?: number;
  /**
   * GETs in a row that try to resume an event stream whose read broke off, with `Last-Event-ID` (when the server
   * gives event ids). Default 10 (about 11 s in all); 0 never resumes.
   */
  maxResumeAttempts?: number;
  /**
   * A bound on a silent server: an event stream whose server has sent keep-alive comments (acpkit's server sends one
   * every 15 s on an idle stream) and then sends nothing at all for this many ms is taken as broken
   * (`EventStreamSilentError`), and resumed like any break (with `Last-Event-ID`, on another node behind a balancer)
   * or the link fails. A server that never sends comments is never timed out. Off by default; a few keep-alive
   * intervals (e.g. 45000) find a server stopped, frozen or cut off without a FIN, which TCP alone finds only after
   * hours.
   */
  silenceTimeoutMs?: number;
  /** Where the link's diagnostics go. Silent by default. */
  logger?: Logger;
  /**
   * When set, each incoming message goes here with its exact text instead of to the receiver's `message` (for
   * bridges that pass frames on unchanged). Problems and the end still go to the receiver.
   */
  deliverText?: (text: string, value: unknown) => void;
}

/** `maxResumeAttempts` with its default, checked. */
export function resolveResumeAttempts(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_RESUME_ATTEMPTS;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`maxResumeAttempts must be a non-negative integer, got ${String(value)}`);
  return value;
}

/** `silenceTimeoutMs`, checked (undefined: off). */
export function resolveSilenceTimeout(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0)
    throw new RangeError(`silenceTimeoutMs must be a positive number of milliseconds, got ${String(value)}`);
  return value;
}
