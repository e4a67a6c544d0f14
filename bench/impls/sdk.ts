/**
 * One adapter for every implementation with the official SDK's 2.x app API (`agent()`, `client()`, `onRequest`,
 * `onNotification`, `connect`, `ndJsonStream`, `methods`). The official SDK and acpkit differ only in the module
 * they load and in how an in-memory pair of streams is made.
 */
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { Readable, Writable } from "node:stream";
import type * as Official from "@agentclientprotocol/sdk";
import { runTurn, type AgentSink, type TurnObserver } from "../agent-logic.js";
import {
  commandOf,
  END_TURN,
  INITIALIZE_PARAMS,
  INITIALIZE_RESULT,
  NEW_SESSION_PARAMS,
  promptParams,
  SESSION_ID,
} from "../workloads.js";
import type { BenchClient, ClientHooks, Impl, ImplName, RemoteProfile } from "./types.js";

/** The module shape both SDK-style implementations provide. */
export type SdkModule = typeof Official;
export type SdkStream = Official.Stream;

export interface SdkImplSpec {
  name: ImplName;
  /** Imports the implementation's public entry point. */
  load(): Promise<SdkModule>;
  /** Two connected in-memory streams: [agent side, client side]. */
  memoryPair(acp: SdkModule): Promise<[SdkStream, SdkStream]>;
  memoryNote: string;
  /** False when `memoryPair` is not meant to be used. Default true. */
  hasMemory?: boolean;
  /**
   * Streams over stdio other than the drop-in `ndJsonStream(Writable.toWeb(..), Readable.toWeb(..))`
   * (e.g. acpkit's Node transports). Optional.
   */
  stdio?: () => Promise<{ agentStream(): SdkStream; clientStream(child: ChildProcessWithoutNullStreams): SdkStream }>;
  /** The implementation's remote server and clients (Streamable HTTP, WebSocket). Optional. */
  remote?: () => Promise<RemoteKit>;
}

/** What the remote rows need of an implementation. */
export interface RemoteKit {
  /** Hosts `app` (one connection per client) on 127.0.0.1; resolves with the `http://HOST:PORT/acp` URL. */
  listen(app: Official.AgentApp): Promise<string>;
  /** A client stream to `url` over `profile` (the WebSocket URL is derived from it). */
  stream(url: string, profile: RemoteProfile): SdkStream;
}

function toWebWritable(stream: NodeJS.WritableStream): WritableStream<Uint8Array> {
  return Writable.toWeb(stream as Writable) as unknown as WritableStream<Uint8Array>;
}

function toWebReadable(stream: NodeJS.ReadableStream): ReadableStream<Uint8Array> {
  return Readable.toWeb(stream as Readable) as unknown as ReadableStream<Uint8Array>;
}

function buildAgent(acp: SdkModule, observer?: TurnObserver): Official.AgentApp {
  return acp
    .agent({ name: "acpkit-bench-agent" })
    .onRequest(acp.methods.agent.initialize, () => INITIALIZE_RESULT)
    .onRequest(acp.methods.agent.session.new, () => ({ sessionId: SESSION_ID }))
    .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
      const sessionId = params.sessionId;
      const sink: AgentSink = {
        notify: (update) =>
          client.notify(acp.methods.client.session.update, { sessionId, update: update as Official.SessionUpdate }),
        readTextFile: (path) => client.request(acp.methods.client.fs.readTextFile, { sessionId, path }),
      };
      await runTurn(commandOf(params), sink, observer);
      return END_TURN;
    });
}

function buildClient(acp: SdkModule, hooks: ClientHooks): Official.ClientApp {
  return acp
    .client({ name: "acpkit-bench-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      hooks.onUpdate(params.update);
    })
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: hooks.readTextFile(params.path) }));
}

async function handshake(
  acp: SdkModule,
  connection: Official.ClientConnection,
  onClose: () => void,
): Promise<BenchClient> {
  const agent = connection.agent;
  await agent.request(acp.methods.agent.initialize, INITIALIZE_PARAMS as Official.InitializeRequest);
  const { sessionId } = await agent.request(
    acp.methods.agent.session.new,
    NEW_SESSION_PARAMS as Official.NewSessionRequest,
  );
  return {
    prompt: (cmd) =>
      agent.request(acp.methods.agent.session.prompt, promptParams(sessionId, cmd) as Official.PromptRequest),
    close: () => {
      connection.close();
      onClose();
    },
  };
}

/** Builds the adapter for an SDK-shaped implementation. */
export function sdkImpl(spec: SdkImplSpec): Impl {
  let module: SdkModule | undefined;
  const acp = async () => (module ??= await spec.load());
  const ext = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  return {
    name: spec.name,
    hasMemory: spec.hasMemory ?? true,
    agentScript: new URL(`../agents/${spec.name}-agent${ext}`, import.meta.url),
    get memoryNote() {
      return spec.memoryNote;
    },

    async load() {
      const m = await acp();
      if (spec.stdio) await spec.stdio();
      for (const name of ["agent", "client", "ndJsonStream", "methods"] as const) {
        if (m[name] === undefined) throw new Error(`${spec.name} does not export ${name}`);
      }
    },

    async serveStdio(observer) {
      const sdk = await acp();
      const stream = spec.stdio
        ? (await spec.stdio()).agentStream()
        : sdk.ndJsonStream(toWebWritable(process.stdout), toWebReadable(process.stdin));
      buildAgent(sdk, observer).connect(stream);
    },

    async connectPipe(child: ChildProcessWithoutNullStreams, hooks) {
      const sdk = await acp();
      const stream = spec.stdio
        ? (await spec.stdio()).clientStream(child)
        : sdk.ndJsonStream(toWebWritable(child.stdin), toWebReadable(child.stdout));
      const connection = buildClient(sdk, hooks).connect(stream);
      return handshake(sdk, connection, () => {
        if (!child.stdin.writableEnded) child.stdin.end();
      });
    },

    ...(spec.remote
      ? {
          async serveRemote(observer: TurnObserver) {
            const sdk = await acp();
            return (await spec.remote!()).listen(buildAgent(sdk, observer));
          },
          async connectRemote(url: string, profile: RemoteProfile, hooks: ClientHooks) {
            const sdk = await acp();
            const connection = buildClient(sdk, hooks).connect((await spec.remote!()).stream(url, profile));
            return handshake(sdk, connection, () => {});
          },
        }
      : {}),

    async connectMemory(hooks) {
      const sdk = await acp();
      const [agentSide, clientSide] = await spec.memoryPair(sdk);
      const agentConnection = buildAgent(sdk).connect(agentSide);
      const connection = buildClient(sdk, hooks).connect(clientSide);
      return handshake(sdk, connection, () => agentConnection.close());
    },
  };
}

/** Two connected streams made of TransformStreams (what the official SDK's `client().connect(agentApp)` uses). */
export function transformStreamPair(): [SdkStream, SdkStream] {
  const leftToRight = new TransformStream();
  const rightToLeft = new TransformStream();
  return [
    { readable: rightToLeft.readable, writable: leftToRight.writable },
    { readable: leftToRight.readable, writable: rightToLeft.writable },
  ];
}
