/**
 * Type shapes, not just names (issue 8): the main public types of acpkit and of the official SDK (2.4.0 for the apps
 * and the remote entries, 1.9.0 for the 1.x `Agent` / `Client` interfaces) are assignable both ways, so a value built
 * for one fits the other. Checked by the compiler: each pair below is a function in each direction, and a shape
 * that drifts fails the build with the member that differs.
 *
 * Where both SDKs declare a class with private members (the contexts, apps, `SessionBuilder`, `TerminalHandle`,
 * `AcpServer`, the 1.x connections), TypeScript compares them nominally: no class of one package is assignable to
 * the other's, whatever its shape. There the check is on the public surface: the same public member names both ways
 * (compile time), the official methods with at least their declared parameters (run time, below), and the data a
 * handler receives (method, params, signal, request id) assignable both ways. Code that switches its import as a whole
 * never meets this; MIGRATING.md says so for code that mixes the two packages' class types.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import * as official from "@agentclientprotocol/sdk";
import type * as oHttp from "@agentclientprotocol/sdk/experimental/http-client";
import type * as oNode from "@agentclientprotocol/sdk/experimental/node";
import type * as oServer from "@agentclientprotocol/sdk/experimental/server";
import type * as oWs from "@agentclientprotocol/sdk/experimental/ws-client";
import * as official1x from "sdk-1.9";
import type * as aHttp from "../../src/entries/experimental/http-client.js";
import type * as aNode from "../../src/entries/experimental/node.js";
import type * as aServer from "../../src/entries/experimental/server.js";
import type * as aWs from "../../src/entries/experimental/ws-client.js";
import * as acpkit from "../../src/entries/index.js";

type O = typeof official;
type A = typeof acpkit;
/** The public, string-keyed members of a class instance (private members and symbol keys dropped). */
type PublicKeys<T> = keyof { [K in keyof T as K extends symbol ? never : K]: T[K] };

// 1.x handler interfaces (1.9.0), the stream, and options: assignable both ways.
export const plain = {
  agent: { to: (x: acpkit.Agent): official1x.Agent => x, from: (x: official1x.Agent): acpkit.Agent => x },
  client: { to: (x: acpkit.Client): official1x.Client => x, from: (x: official1x.Client): acpkit.Client => x },
  stream: { to: (x: acpkit.Stream): official.Stream => x, from: (x: official.Stream): acpkit.Stream => x },
  streamV1: { to: (x: acpkit.Stream): official1x.Stream => x, from: (x: official1x.Stream): acpkit.Stream => x },
  anyMessage: {
    to: (x: acpkit.AnyMessage): official.AnyMessage => x,
    from: (x: official.AnyMessage): acpkit.AnyMessage => x,
  },
  sendRequestOptions: {
    to: (x: acpkit.SendRequestOptions): official.SendRequestOptions => x,
    from: (x: official.SendRequestOptions): acpkit.SendRequestOptions => x,
  },
  ndJsonStreamOptions: {
    to: (x: acpkit.NdJsonStreamOptions): official.NdJsonStreamOptions => x,
    from: (x: official.NdJsonStreamOptions): acpkit.NdJsonStreamOptions => x,
  },
  appOptions: {
    to: (x: acpkit.AppOptions): official.AppOptions => x,
    from: (x: official.AppOptions): acpkit.AppOptions => x,
  },
  paramsParser: {
    to: (x: acpkit.ParamsParser<number>): official.ParamsParser<number> => x,
    from: (x: official.ParamsParser<number>): acpkit.ParamsParser<number> => x,
  },
  activeSessionMessage: {
    to: (x: acpkit.ActiveSessionMessage): official.ActiveSessionMessage => x,
    from: (x: official.ActiveSessionMessage): acpkit.ActiveSessionMessage => x,
  },
  agentConnector: {
    to: (x: acpkit.AgentConnector): official.AgentConnector => x,
    from: (x: official.AgentConnector): acpkit.AgentConnector => x,
  },
  agentConnectOptions: {
    to: (x: acpkit.AgentConnectOptions): official.AgentConnectOptions => x,
    from: (x: official.AgentConnectOptions): acpkit.AgentConnectOptions => x,
  },
};

// The 2.x app maps: method names, params and results by method, for both sides.
export const appMaps = {
  agentRequestMethod: {
    to: (x: acpkit.AgentRequestMethod): official.AgentRequestMethod => x,
    from: (x: official.AgentRequestMethod): acpkit.AgentRequestMethod => x,
  },
  agentNotificationMethod: {
    to: (x: acpkit.AgentNotificationMethod): official.AgentNotificationMethod => x,
    from: (x: official.AgentNotificationMethod): acpkit.AgentNotificationMethod => x,
  },
  clientRequestMethod: {
    to: (x: acpkit.ClientRequestMethod): official.ClientRequestMethod => x,
    from: (x: official.ClientRequestMethod): acpkit.ClientRequestMethod => x,
  },
  clientNotificationMethod: {
    to: (x: acpkit.ClientNotificationMethod): official.ClientNotificationMethod => x,
    from: (x: official.ClientNotificationMethod): acpkit.ClientNotificationMethod => x,
  },
  agentRequestParams: {
    to: (x: acpkit.AgentRequestParamsByMethod): official.AgentRequestParamsByMethod => x,
    from: (x: official.AgentRequestParamsByMethod): acpkit.AgentRequestParamsByMethod => x,
  },
  agentRequestResponses: {
    to: (x: acpkit.AgentRequestResponsesByMethod): official.AgentRequestResponsesByMethod => x,
    from: (x: official.AgentRequestResponsesByMethod): acpkit.AgentRequestResponsesByMethod => x,
  },
  agentNotificationParams: {
    to: (x: acpkit.AgentNotificationParamsByMethod): official.AgentNotificationParamsByMethod => x,
    from: (x: official.AgentNotificationParamsByMethod): acpkit.AgentNotificationParamsByMethod => x,
  },
  clientRequestParams: {
    to: (x: acpkit.ClientRequestParamsByMethod): official.ClientRequestParamsByMethod => x,
    from: (x: official.ClientRequestParamsByMethod): acpkit.ClientRequestParamsByMethod => x,
  },
  clientRequestResponses: {
    to: (x: acpkit.ClientRequestResponsesByMethod): official.ClientRequestResponsesByMethod => x,
    from: (x: official.ClientRequestResponsesByMethod): acpkit.ClientRequestResponsesByMethod => x,
  },
  clientNotificationParams: {
    to: (x: acpkit.ClientNotificationParamsByMethod): official.ClientNotificationParamsByMethod => x,
    from: (x: official.ClientNotificationParamsByMethod): acpkit.ClientNotificationParamsByMethod => x,
  },
  // The handler maps hold handlers of the same methods (their contexts are classes: see the file comment).
  agentRequestHandlerKeys: {
    to: (x: keyof acpkit.AgentRequestHandlersByMethod): keyof official.AgentRequestHandlersByMethod => x,
    from: (x: keyof official.AgentRequestHandlersByMethod): keyof acpkit.AgentRequestHandlersByMethod => x,
  },
  clientRequestHandlerKeys: {
    to: (x: keyof acpkit.ClientRequestHandlersByMethod): keyof official.ClientRequestHandlersByMethod => x,
    from: (x: keyof official.ClientRequestHandlersByMethod): keyof acpkit.ClientRequestHandlersByMethod => x,
  },
};

// What a handler receives, apart from the context class it calls back through.
type P = official.PromptRequest;
type R = official.RequestPermissionRequest;
type C = official.CancelNotification;
type N = official.SessionNotification;
export const handlerData = {
  agentRequest: {
    to: (x: Omit<acpkit.AgentRequestContext<P>, "client">): Omit<official.AgentRequestContext<P>, "client"> => x,
    from: (x: Omit<official.AgentRequestContext<P>, "client">): Omit<acpkit.AgentRequestContext<P>, "client"> => x,
  },
  agentNotification: {
    to: (x: Omit<acpkit.AgentNotificationContext<C>, "client">): Omit<official.AgentNotificationContext<C>, "client"> =>
      x,
    from: (
      x: Omit<official.AgentNotificationContext<C>, "client">,
    ): Omit<acpkit.AgentNotificationContext<C>, "client"> => x,
  },
  clientRequest: {
    to: (x: Omit<acpkit.ClientRequestContext<R>, "agent">): Omit<official.ClientRequestContext<R>, "agent"> => x,
    from: (x: Omit<official.ClientRequestContext<R>, "agent">): Omit<acpkit.ClientRequestContext<R>, "agent"> => x,
  },
  clientNotification: {
    to: (x: Omit<acpkit.ClientNotificationContext<N>, "agent">): Omit<official.ClientNotificationContext<N>, "agent"> =>
      x,
    from: (
      x: Omit<official.ClientNotificationContext<N>, "agent">,
    ): Omit<acpkit.ClientNotificationContext<N>, "agent"> => x,
  },
};

// Classes: the same public member names both ways (acpkit's extras left out on the way there: the apps' `name`, the
// connections' `peerSupports`, `tap` and `startConnectHandlers`).
export const publicNames = {
  agentContext: {
    to: (x: PublicKeys<acpkit.AgentContext>): PublicKeys<official.AgentContext> => x,
    from: (x: PublicKeys<official.AgentContext>): PublicKeys<acpkit.AgentContext> => x,
  },
  clientContext: {
    to: (x: PublicKeys<acpkit.ClientContext>): PublicKeys<official.ClientContext> => x,
    from: (x: PublicKeys<official.ClientContext>): PublicKeys<acpkit.ClientContext> => x,
  },
  sessionBuilder: {
    to: (x: PublicKeys<acpkit.SessionBuilder>): PublicKeys<official.SessionBuilder> => x,
    from: (x: PublicKeys<official.SessionBuilder>): PublicKeys<acpkit.SessionBuilder> => x,
  },
  activeSession: {
    to: (x: PublicKeys<acpkit.ActiveSession>): PublicKeys<official.ActiveSession> => x,
    from: (x: PublicKeys<official.ActiveSession>): PublicKeys<acpkit.ActiveSession> => x,
  },
  terminalHandle: {
    to: (x: PublicKeys<acpkit.TerminalHandle>): PublicKeys<official.TerminalHandle> => x,
    from: (x: PublicKeys<official.TerminalHandle>): PublicKeys<acpkit.TerminalHandle> => x,
  },
  agentApp: {
    to: (x: Exclude<PublicKeys<acpkit.AgentApp>, "name">): PublicKeys<official.AgentApp> => x,
    from: (x: PublicKeys<official.AgentApp>): PublicKeys<acpkit.AgentApp> => x,
  },
  clientApp: {
    to: (x: Exclude<PublicKeys<acpkit.ClientApp>, "name">): PublicKeys<official.ClientApp> => x,
    from: (x: PublicKeys<official.ClientApp>): PublicKeys<acpkit.ClientApp> => x,
  },
  agentConnection: {
    to: (
      x: Exclude<PublicKeys<acpkit.AgentConnection>, "peerSupports" | "tap" | "startConnectHandlers">,
    ): PublicKeys<official.AgentConnection> => x,
    from: (x: PublicKeys<official.AgentConnection>): PublicKeys<acpkit.AgentConnection> => x,
  },
  clientConnection: {
    to: (
      x: Exclude<PublicKeys<acpkit.ClientConnection>, "peerSupports" | "tap">,
    ): PublicKeys<official.ClientConnection> => x,
    from: (x: PublicKeys<official.ClientConnection>): PublicKeys<acpkit.ClientConnection> => x,
  },
  // The 1.x classes: every official member is there (acpkit adds typed `request` / `notify`, `close`, `tap`, ...).
  agentSideConnection: {
    from: (x: PublicKeys<official1x.AgentSideConnection>): PublicKeys<acpkit.AgentSideConnection> => x,
  },
  clientSideConnection: {
    from: (x: PublicKeys<official1x.ClientSideConnection>): PublicKeys<acpkit.ClientSideConnection> => x,
  },
};

// The remote and Node entries' option types (2.4.0), assignable both ways.
export const remote = {
  acpServerOptions: {
    to: (x: aServer.AcpServerOptions): oServer.AcpServerOptions => x,
    from: (x: oServer.AcpServerOptions): aServer.AcpServerOptions => x,
  },
  connectionLimits: {
    to: (x: aServer.ConnectionLimits): oServer.ConnectionLimits => x,
    from: (x: oServer.ConnectionLimits): aServer.ConnectionLimits => x,
  },
  handleRequestOptions: {
    to: (x: aServer.HandleRequestOptions): oServer.HandleRequestOptions => x,
    from: (x: oServer.HandleRequestOptions): aServer.HandleRequestOptions => x,
  },
  prepareWebSocketUpgradeOptions: {
    to: (x: aServer.PrepareWebSocketUpgradeOptions): oServer.PrepareWebSocketUpgradeOptions => x,
    from: (x: oServer.PrepareWebSocketUpgradeOptions): aServer.PrepareWebSocketUpgradeOptions => x,
  },
  nodeHttpHandlerOptions: {
    to: (x: aNode.NodeHttpHandlerOptions): oNode.NodeHttpHandlerOptions => x,
    from: (x: oNode.NodeHttpHandlerOptions): aNode.NodeHttpHandlerOptions => x,
  },
  httpStreamOptions: {
    to: (x: aHttp.HttpStreamOptions): oHttp.HttpStreamOptions => x,
    from: (x: oHttp.HttpStreamOptions): aHttp.HttpStreamOptions => x,
  },
  webSocketStreamOptions: {
    to: (x: aWs.WebSocketStreamOptions): oWs.WebSocketStreamOptions => x,
    from: (x: oWs.WebSocketStreamOptions): aWs.WebSocketStreamOptions => x,
  },
  cookieStore: {
    to: (x: aHttp.AcpCookieStore): oHttp.AcpCookieStore => x,
    from: (x: oHttp.AcpCookieStore): aHttp.AcpCookieStore => x,
  },
};

/** Public prototype methods of a class (own and inherited, not Object's), with their arity. */
function methodsOf(klass: { prototype: object }): Map<string, number> {
  const methods = new Map<string, number>();
  for (
    let proto: object | null = klass.prototype;
    proto !== null && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto) as object | null
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name === "constructor" || methods.has(name)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name)!;
      if (typeof descriptor.value === "function") methods.set(name, descriptor.value.length);
      else if (descriptor.get !== undefined) methods.set(name, -1);
    }
  }
  return methods;
}

/**
 * The official class's public methods (TypeScript's private ones are visible at run time: the compile-time names
 * decide).
 */
function assertSameMethods(ours: { prototype: object }, theirs: { prototype: object }, names: readonly string[]) {
  const mine = methodsOf(ours);
  const reference = methodsOf(theirs);
  for (const name of names) {
    assert.ok(reference.has(name), `${name} is not a method of the official class (fix this list)`);
    assert.ok(mine.has(name), `acpkit's class has no ${name}`);
    // As many declared parameters or more (acpkit adds optional ones, e.g. request options).
    if (reference.get(name) !== -1)
      assert.ok(
        mine.get(name)! >= reference.get(name)!,
        `${name} takes ${reference.get(name)} declared parameters in the official class, ${mine.get(name)} here`,
      );
  }
}

describe("the classes have the official public methods, taking at least the official parameters", () => {
  const v2 = (name: keyof O & keyof A) =>
    [acpkit[name] as { prototype: object }, official[name] as { prototype: object }] as const;
  test("AgentApp, ClientApp", () => {
    assertSameMethods(...v2("AgentApp"), ["connect", "connectWith", "onConnect", "onRequest", "onNotification"]);
    assertSameMethods(...v2("ClientApp"), ["connect", "connectWith", "onConnect", "onRequest", "onNotification"]);
  });
  test("AgentContext, ClientContext, SessionBuilder, ActiveSession, TerminalHandle", () => {
    assertSameMethods(...v2("AgentContext"), ["requestId", "createTerminal", "request", "notify"]);
    assertSameMethods(...v2("ClientContext"), ["requestId", "buildSession", "request", "notify"]);
    assertSameMethods(...v2("SessionBuilder"), [
      "toRequest",
      "withAdditionalDirectories",
      "withMcpServer",
      "start",
      "withSession",
    ]);
    assertSameMethods(...v2("ActiveSession"), [
      "sessionId",
      "modes",
      "meta",
      "newSessionResponse",
      "prompt",
      "nextUpdate",
      "readText",
      "dispose",
    ]);
    assertSameMethods(...v2("TerminalHandle"), ["currentOutput", "waitForExit", "kill", "release"]);
  });
  test("the 1.x AgentSideConnection and ClientSideConnection (1.9.0)", () => {
    const names = (klass: { prototype: object }) => [...methodsOf(klass).keys()];
    assertSameMethods(
      acpkit.AgentSideConnection,
      official1x.AgentSideConnection,
      names(official1x.AgentSideConnection),
    );
    assertSameMethods(
      acpkit.ClientSideConnection,
      official1x.ClientSideConnection,
      names(official1x.ClientSideConnection),
    );
  });
});
