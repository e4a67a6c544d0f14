/**
 * Which web streams Node made from its own streams (`Readable.toWeb`, `Writable.toWeb`), so that `ndJsonStream` can
 * read and write the Node stream underneath instead of going through the web-stream adapter, as `@acpkit/sdk/node`
 * does: no copy of every incoming chunk, no TextEncoder copy and no web-stream promise chain per write (issue 20).
 *
 * Code written for the official SDK hands `ndJsonStream` `Writable.toWeb(stdout)` and `Readable.toWeb(stdin)`; the web
 * stream keeps its Node stream only in closures, so `installNodeWebOrigins()` (called when the transports load)
 * wraps the two `toWeb` functions of `node:stream` to note each pair in a registry shared by every copy of acpkit in
 * the process. The wrappers return what Node returns, unchanged; where `process.getBuiltinModule` is missing (browsers,
 * Node before 20.16) nothing is wrapped and `ndJsonStream` reads and writes the web streams as before.
 *
 * A readable is handed over only while the adapter has delivered nothing into the web stream (the wrapper counts its
 * `data` events), no reader holds it, and the Node stream gives bytes (no object mode, no encoding).
 */

/** What of a Node `Readable` the direct source uses (structural: the transports do not import Node's types). */
export interface NodeReadableLike {
  on(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  off(event: "data", listener: (chunk: Uint8Array | string) => void): unknown;
  listeners(event: "data"): unknown[];
  pause(): unknown;
  resume(): unknown;
  readonly readableObjectMode?: boolean;
  readonly readableEncoding?: string | null;
}

/** What of a Node `Writable` the direct sink uses. */
export interface NodeWritableLike {
  write(chunk: Uint8Array, callback: (error?: Error | null) => void): boolean;
  write(chunk: string, encoding: "utf8", callback: (error?: Error | null) => void): boolean;
  readonly destroyed?: boolean;
  readonly writableEnded?: boolean;
  readonly writableObjectMode?: boolean;
  readonly writableHighWaterMark?: number;
}

interface ReadableOrigin {
  readonly node: NodeReadableLike;
  /** The adapter's `data` listener, wrapped so that a delivery is seen. */
  readonly listener: (chunk: Uint8Array | string) => void;
  delivered: boolean;
}

interface Registry {
  readonly readables: WeakMap<object, ReadableOrigin>;
  readonly writables: WeakMap<object, NodeWritableLike>;
}

type ToWeb = (this: unknown, stream: unknown, ...rest: unknown[]) => unknown;

const REGISTRY = Symbol.for("acpkit.nodeWebOrigins");
const WRAPPED = Symbol.for("acpkit.nodeWebOrigins.wrapped");

function registry(): Registry {
  const holder = globalThis as { [REGISTRY]?: Registry };
  holder[REGISTRY] ??= { readables: new WeakMap(), writables: new WeakMap() };
  return holder[REGISTRY];
}

function isObject(value: unknown): value is object {
  return (typeof value === "object" || typeof value === "function") && value !== null;
}

/** Replaces `owner.toWeb` by a wrapper that calls it and then `note(web, node, dataListenersBefore)`. */
function wrapToWeb(owner: unknown, note: (web: object, node: unknown, before: unknown[] | undefined) => void): void {
  if (!isObject(owner)) return;
  const holder = owner as { toWeb?: ToWeb & { [WRAPPED]?: true } };
  const original = holder.toWeb;
  if (typeof original !== "function" || original[WRAPPED]) return;
  const toWeb = function toWeb(this: unknown, stream: unknown, ...rest: unknown[]): unknown {
    const listeners = isObject(stream) ? (stream as { listeners?: unknown }).listeners : undefined;
    const before = typeof listeners === "function" ? (listeners.call(stream, "data") as unknown[]) : undefined;
    const web = original.call(this, stream, ...rest);
    try {
      if (isObject(web)) note(web, stream, before);
    } catch {
      // Not a stream we understand: it stays a plain web stream.
    }
    return web;
  } as ToWeb & { [WRAPPED]?: true };
  toWeb[WRAPPED] = true;
  Object.defineProperty(toWeb, "length", { value: original.length });
  holder.toWeb = toWeb;
}

function noteReadable(web: object, stream: unknown, before: unknown[] | undefined): void {
  if (before === undefined) return;
  const node = stream as NodeReadableLike;
  const added = node.listeners("data").filter((listener) => !before.includes(listener));
  if (added.length !== 1 || typeof added[0] !== "function") return;
  const adapter = added[0] as (chunk: Uint8Array | string) => void;
  const origin: ReadableOrigin = {
    node,
    listener: (chunk) => {
      origin.delivered = true;
      adapter(chunk);
    },
    delivered: false,
  };
  // The adapter paused the stream before listening, so swapping its listener does not start the flow.
  node.off("data", adapter);
  node.on("data", origin.listener);
  registry().readables.set(web, origin);
}

function noteWritable(web: object, stream: unknown): void {
  const node = stream as NodeWritableLike;
  if (typeof node.write === "function") registry().writables.set(web, node);
}

let installed = false;

/**
 * Wraps `Readable.toWeb` and `Writable.toWeb` of `node:stream` (once per process), where Node lets us reach them. Only
 * once `node:stream` is loaded: loading it would cost an import of acpkit a few milliseconds, and code that makes web
 * streams of Node streams has loaded it (a static import is loaded before the importing modules run); until then each
 * call tries again (`ndJsonStream` calls it too).
 */
export function installNodeWebOrigins(): void {
  if (installed) return;
  const node = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown; moduleLoadList?: unknown } })
    .process;
  const get = node?.getBuiltinModule;
  if (typeof get !== "function") {
    installed = true;
    return;
  }
  const loaded = node!.moduleLoadList;
  if (Array.isArray(loaded) && !loaded.includes("NativeModule stream")) return;
  installed = true;
  let stream: { Readable?: unknown; Writable?: unknown } | undefined;
  try {
    stream = get("node:stream") as typeof stream;
  } catch {
    return;
  }
  wrapToWeb(stream?.Readable, noteReadable);
  wrapToWeb(stream?.Writable, noteWritable);
}

/**
 * The Node stream under `web` (made by `Readable.toWeb`), taken over for reading: the adapter's listener is removed, so
 * the web stream gets no more data (its end and errors still arrive through it). Undefined, and nothing changed, when
 * `web` did not come from `Readable.toWeb`, has delivered data already, is locked, or is not a byte stream.
 */
export function takeNodeReadable(web: ReadableStream<Uint8Array>): NodeReadableLike | undefined {
  const readables = registry().readables;
  const origin = readables.get(web);
  if (origin === undefined || origin.delivered || web.locked) return undefined;
  const node = origin.node;
  if (node.readableObjectMode === true || (node.readableEncoding !== undefined && node.readableEncoding !== null)) {
    return undefined;
  }
  readables.delete(web);
  node.off("data", origin.listener);
  return node;
}

/** The Node stream under `web` when `Writable.toWeb` made it from a byte stream, else undefined. */
export function nodeWritableOf(web: WritableStream<Uint8Array>): NodeWritableLike | undefined {
  const node = registry().writables.get(web);
  return node === undefined || node.writableObjectMode === true ? undefined : node;
}
