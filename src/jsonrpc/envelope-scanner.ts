import type { JsonRpcId } from "./messages.js";

/**
 * What can be told about a JSON-RPC frame without parsing it: its top-level `"id"` (and the id's exact text when
 * a JS number cannot hold it), its `"method"`, and so whether it is a request, a notification or a response.
 */
export interface EnvelopeSketch {
  /** `request` (method and id), `notification` (method, no id), `response` (id, no method), `unknown`. */
  kind: "request" | "notification" | "response" | "unknown";
  /** The top-level id, when there is a usable one (a string, a number or null). */
  id?: JsonRpcId;
  /** The id's exact text on the wire, when it differs from what `JSON.stringify(id)` would write (e.g. 2^53 + 1). */
  rawId?: string;
  /** The top-level method, when it is a short string. */
  method?: string;
}

const MAX_TOKEN_BYTES = 512;
const MAX_KEY_BYTES = 16;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d || code === 0xfeff;
}

/** Which top-level member a value belongs to. */
const enum Member {
  Other,
  Id,
  Method,
  Result,
  Error,
}

/** Where the scanner is, outside nested values. */
const enum Place {
  /** Before the opening brace. */
  Start,
  /** Inside the top-level object, where a key (or the closing brace) comes next. */
  Key,
  /** After a top-level key, before its colon. */
  Colon,
  /** After a colon: a top-level value starts with the next non-space byte. */
  Value,
  /** Inside a top-level scalar (number, true, false, null). */
  Scalar,
  /** After a top-level value, before a comma or the closing brace. */
  After,
  /** The object ended, or the text is not an object: nothing more to learn. */
  Done,
}

/**
 * Scans a JSON text incrementally, chunk by chunk, for the members that say whose frame it is, wherever they
 * stand (an `"id"` after a 20 MiB `"params"` is found). Bounded: it keeps a nesting depth, a few flags and at most
 * 512 bytes of the id and method tokens, whatever the size of the text; each byte is looked at once. Meant for
 * frames too large to parse, whose bytes are otherwise discarded.
 */
export class EnvelopeScanner {
  #place = Place.Start;
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** The member whose value is being read (or was read last). */
  #member = Member.Other;
  /** Bytes of the key being read, or -1 once it is too long to be one we look for. */
  #key = new Uint8Array(MAX_KEY_BYTES);
  #keyLength = 0;
  #readingKey = false;
  /** Bytes of the id or method token being read, or -1 once it is too long. */
  #token = new Uint8Array(MAX_TOKEN_BYTES);
  #tokenLength = 0;
  #readingToken = false;
  #idToken: string | undefined;
  #idUnusable = false;
  #methodToken: string | undefined;
  #sawMethod = false;
  #sawResult = false;

  /** Scans `bytes[from, to)`, the next bytes of the text. */
  push(bytes: ArrayLike<number>, from = 0, to = bytes.length): void {
    for (let i = from; i < to; i++) {
      if (this.#place === Place.Done) return;
      this.#byte(bytes[i]!);
    }
  }

  /** True once the kind and id are known for sure (they cannot change with more bytes, short of duplicate keys). */
  get settled(): boolean {
    if (this.#place === Place.Done) return true;
    return (this.#idToken !== undefined || this.#idUnusable) && (this.#sawMethod || this.#sawResult);
  }

  /** What is known so far. Call after the last `push` for the final answer. */
  sketch(): EnvelopeSketch {
    const sketch: EnvelopeSketch = { kind: "unknown" };
    if (this.#methodToken !== undefined) {
      try {
        const method: unknown = JSON.parse(this.#methodToken);
        if (typeof method === "string") sketch.method = method;
      } catch {
        // not a string token: no method name to report
      }
    }
    const idKnown = this.#idToken !== undefined && !this.#idUnusable;
    if (idKnown) Object.assign(sketch, parseIdToken(this.#idToken!));
    const hasId = idKnown && "id" in sketch;
    if (this.#sawMethod)
      sketch.kind = hasId
        ? "request"
        : this.#place === Place.Done && this.#idToken === undefined && !this.#idUnusable
          ? "notification"
          : "unknown";
    else if (hasId && (this.#sawResult || this.#place === Place.Done)) sketch.kind = "response";
    return sketch;
  }

  #byte(code: number): void {
    if (this.#inString) return this.#stringByte(code);
    if (this.#depth > 1) {
      if (code === QUOTE) this.#inString = true;
      else if (code === OPEN_BRACE || code === OPEN_BRACKET) this.#depth++;
      else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
        this.#depth--;
        if (this.#depth === 1) this.#valueEnded();
      }
      return;
    }
    switch (this.#place) {
      case Place.Start:
        if (code === OPEN_BRACE) {
          this.#depth = 1;
          this.#place = Place.Key;
        } else if (!isSpace(code)) this.#place = Place.Done;
        return;
      case Place.Key:
        if (code === QUOTE) {
          this.#inString = true;
          this.#readingKey = true;
          this.#keyLength = 0;
        } else if (code === CLOSE_BRACE) this.#place = Place.Done;
        return;
      case Place.Colon:
        if (code === COLON) this.#place = Place.Value;
        return;
      case Place.Value:
        return this.#valueStart(code);
      case Place.Scalar:
        if (isSpace(code) || code === COMMA || code === CLOSE_BRACE) {
          this.#valueEnded();
          this.#afterValue(code);
        } else this.#take(code);
        return;
      case Place.After:
        return this.#afterValue(code);
    }
  }

  #stringByte(code: number): void {
    if (this.#escaped) this.#escaped = false;
    else if (code === BACKSLASH) this.#escaped = true;
    else if (code === QUOTE) {
      this.#inString = false;
      if (this.#readingKey) return this.#keyEnded();
      if (this.#depth === 1) {
        this.#take(code);
        this.#valueEnded();
      }
      return;
    }
    if (this.#readingKey) {
      if (this.#keyLength >= 0 && this.#keyLength < MAX_KEY_BYTES) this.#key[this.#keyLength++] = code;
      else this.#keyLength = -1;
    } else if (this.#depth === 1) this.#take(code);
  }

  #keyEnded(): void {
    this.#readingKey = false;
    this.#place = Place.Colon;
    this.#member = this.#keyLength < 0 ? Member.Other : memberOf(this.#key.subarray(0, this.#keyLength));
    if (this.#member === Member.Method) this.#sawMethod = true;
    else if (this.#member === Member.Result || this.#member === Member.Error) this.#sawResult = true;
  }

  #valueStart(code: number): void {
    if (isSpace(code)) return;
    this.#readingToken = this.#member === Member.Id || this.#member === Member.Method;
    this.#tokenLength = 0;
    if (code === QUOTE) {
      this.#inString = true;
      this.#take(code);
      this.#place = Place.After; // the closing quote ends the value (#valueEnded), After follows
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (this.#member === Member.Id) this.#idUnusable = true;
      this.#readingToken = false;
      this.#depth++;
      this.#place = Place.After;
    } else {
      this.#take(code);
      this.#place = Place.Scalar;
    }
  }

  #take(code: number): void {
    if (!this.#readingToken) return;
    if (this.#tokenLength >= 0 && this.#tokenLength < MAX_TOKEN_BYTES) this.#token[this.#tokenLength++] = code;
    else this.#tokenLength = -1;
  }

  #valueEnded(): void {
    this.#place = Place.After;
    if (!this.#readingToken) return;
    this.#readingToken = false;
    const token =
      this.#tokenLength < 0 ? undefined : new TextDecoder().decode(this.#token.subarray(0, this.#tokenLength));
    if (this.#member === Member.Id) {
      this.#idToken = token;
      this.#idUnusable = token === undefined;
    } else if (this.#member === Member.Method) this.#methodToken = token;
  }

  #afterValue(code: number): void {
    if (code === COMMA) {
      this.#place = Place.Key;
      this.#member = Member.Other;
    } else if (code === CLOSE_BRACE) this.#place = Place.Done;
  }
}

function memberOf(key: Uint8Array): Member {
  // Keys are compared byte for byte: an escaped spelling ("\u0069d") is not recognised, which only loses the sketch.
  const text = String.fromCharCode(...key);
  switch (text) {
    case "id":
      return Member.Id;
    case "method":
      return Member.Method;
    case "result":
      return Member.Result;
    case "error":
      return Member.Error;
    default:
      return Member.Other;
  }
}

/** The id a token stands for: a string, a finite number (with its exact text when JS cannot hold it), or null. */
function parseIdToken(token: string): Pick<EnvelopeSketch, "id" | "rawId"> {
  let value: unknown;
  try {
    value = JSON.parse(token);
  } catch {
    return {};
  }
  if (value === null || typeof value === "string") return { id: value };
  if (typeof value === "number" && Number.isFinite(value))
    return JSON.stringify(value) === token ? { id: value } : { id: value, rawId: token };
  return {};
}

const encoder = new TextEncoder();

/** Sketches a whole (or partial) JSON text given as a string: for frames whose head is all that is left. */
export function sketchEnvelope(text: string): EnvelopeSketch {
  const scanner = new EnvelopeScanner();
  scanner.push(encoder.encode(text));
  return scanner.sketch();
}

/**
 * The exact text of a parsed message's top-level id when a JS number cannot reproduce it (an integer beyond
 * 2^53, say), else undefined. Cheap for the common case: only a numeric id that is not a safe integer is looked up
 * in `text`, the line it was parsed from.
 */
export function rawIdOf(value: unknown, text: string): string | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const id = (value as { id?: unknown }).id;
  if (typeof id !== "number" || Number.isSafeInteger(id)) return undefined;
  return sketchEnvelope(text).rawId;
}
