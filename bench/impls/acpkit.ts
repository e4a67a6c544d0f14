/**
 * Adapter for acpkit (this package), through the same 2.x app API as the official SDK (it is a drop-in).
 * The module is loaded by a computed specifier so that the bench compiles while src/ is still being written.
 */
import { pathToFileURL } from "node:url";
import { WebSocket } from "ws";
import { sdkImpl, transformStreamPair, type RemoteKit, type SdkModule, type SdkStream } from "./sdk.js";

/** BENCH_ACPKIT_ENTRY (an absolute path or URL) points the bench at another build of acpkit, e.g. a published one. */
export const ACPKIT_ENTRY = entryFromEnv() ?? "../../src/entries/index.js";
/** The remote entry beside the root one (the network transports and the server are not in the root). */
const ACPKIT_REMOTE_ENTRY = ACPKIT_ENTRY.replace(/index\.js$/, "remote.js");
const MEMORY = "../../src/transports/memory.js";
const NODE = "../../src/entries/node.js";

/**
 * acpkit's remote server and clients, each through its own API: `listenAcp` (loopback, no token: the bench measures
 * the transport, not the bearer check) and `createHttpStream` / `createWebSocketStream` from the package entry.
 */
async function acpkitRemote(): Promise<RemoteKit> {
  const acp = (await import(ACPKIT_REMOTE_ENTRY)) as {
    createHttpStream(url: string): SdkStream;
    createWebSocketStream(url: string, options: { WebSocket: unknown }): SdkStream;
  };
  const { listenAcp } = (await import(NODE)) as {
    listenAcp(options: Record<string, unknown>): Promise<{ url: string }>;
  };
  return {
    listen: async (app) => (await listenAcp({ agent: app, insecureNoToken: true })).url,
    stream: (url, profile) =>
      profile === "http"
        ? acp.createHttpStream(url)
        : acp.createWebSocketStream(url.replace(/^http/, "ws"), { WebSocket }),
  };
}

function entryFromEnv(): string | undefined {
  const value = process.env.BENCH_ACPKIT_ENTRY;
  if (!value) return undefined;
  return value.startsWith("file:") ? value : pathToFileURL(value).href;
}

/** acpkit's `createMemoryPair()` may return a tuple or an object of two streams; accept both. */
function asPair(pair: unknown): [SdkStream, SdkStream] {
  const values = Array.isArray(pair) ? pair : Object.values(pair as Record<string, unknown>);
  const streams = values.filter(
    (v): v is SdkStream => typeof v === "object" && v !== null && "readable" in v && "writable" in v,
  );
  if (streams.length < 2) throw new Error("createMemoryPair() did not return two streams");
  return [streams[0]!, streams[1]!];
}

export let acpkitMemoryNote = "createMemoryPair() from src/transports/memory.ts";

export const acpkitImpl = sdkImpl({
  name: "acpkit",
  load: async () => (await import(ACPKIT_ENTRY)) as SdkModule,
  memoryPair: async (acp) => {
    const fromIndex = (acp as unknown as { createMemoryPair?: () => unknown }).createMemoryPair;
    if (fromIndex) return asPair(fromIndex());
    try {
      const memory = (await import(MEMORY)) as { createMemoryPair?: () => unknown };
      if (memory.createMemoryPair) return asPair(memory.createMemoryPair());
    } catch {
      // fall through
    }
    acpkitMemoryNote = "TransformStream pair (createMemoryPair() not found)";
    return transformStreamPair();
  },
  get memoryNote() {
    return acpkitMemoryNote;
  },
  remote: acpkitRemote,
});
