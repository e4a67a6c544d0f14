import assert from "node:assert/strict";
import { test } from "node:test";
import type * as sdk from "@agentclientprotocol/sdk";
import type * as ours from "./index.js";
import { schemas } from "./index.js";

// Compile-time checks: these type aliases fail `tsc` if our generated types drift from the official SDK's where the
// two schemas agree. The SDK is built from a slightly newer schema, so where it has more (new session update kinds,
// ToolCallUpdate.name), ours must still be assignable to theirs.
type Extends<A, B> = [A] extends [B] ? true : false;
type Same<A, B> = Extends<A, B> extends true ? Extends<B, A> : false;
type Expect<T extends true> = T;

type _Identical = [
  Expect<Same<ours.ContentBlock, sdk.ContentBlock>>,
  Expect<Same<ours.ContentChunk, sdk.ContentChunk>>,
  Expect<Same<ours.ToolCallContent, sdk.ToolCallContent>>,
  Expect<Same<ours.ToolCallLocation, sdk.ToolCallLocation>>,
  Expect<Same<ours.ToolKind, sdk.ToolKind>>,
  Expect<Same<ours.PermissionOption, sdk.PermissionOption>>,
  Expect<Same<ours.RequestPermissionResponse, sdk.RequestPermissionResponse>>,
  Expect<Same<ours.PromptRequest, sdk.PromptRequest>>,
  Expect<Same<ours.PromptResponse, sdk.PromptResponse>>,
  Expect<Same<ours.Plan, sdk.Plan>>,
  Expect<Same<ours.AvailableCommandsUpdate, sdk.AvailableCommandsUpdate>>,
  Expect<Same<ours.SessionConfigOption, sdk.SessionConfigOption>>,
  Expect<Same<ours.UsageUpdate, sdk.UsageUpdate>>,
  Expect<Same<ours.InitializeResponse, sdk.InitializeResponse>>,
  Expect<Same<ours.AgentCapabilities, sdk.AgentCapabilities>>,
  Expect<Same<ours.NewSessionResponse, sdk.NewSessionResponse>>,
  Expect<Same<ours.ListSessionsResponse, sdk.ListSessionsResponse>>,
  Expect<Same<ours.CreateElicitationRequest, sdk.CreateElicitationRequest>>,
  Expect<Same<ours.CreateElicitationResponse, sdk.CreateElicitationResponse>>,
  Expect<Same<ours.ElicitationPropertySchema, sdk.ElicitationPropertySchema>>,
  Expect<Same<ours.ReadTextFileResponse, sdk.ReadTextFileResponse>>,
  Expect<Same<ours.WriteTextFileRequest, sdk.WriteTextFileRequest>>,
  Expect<Same<ours.TerminalOutputResponse, sdk.TerminalOutputResponse>>,
  Expect<Same<ours.RequestId, sdk.RequestId>>,
  Expect<Same<ours.ErrorCode, sdk.ErrorCode>>,
  Expect<Same<ours.CancelNotification, sdk.CancelNotification>>,
];

type _Narrower = [
  Expect<Extends<ours.SessionNotification, sdk.SessionNotification>>,
  Expect<Extends<ours.SessionUpdate, sdk.SessionUpdate>>,
  Expect<Extends<ours.ToolCallUpdate, sdk.ToolCallUpdate>>,
  Expect<Extends<ours.NewSessionRequest, sdk.NewSessionRequest>>,
  Expect<Extends<ours.InitializeRequest, sdk.InitializeRequest>>,
  Expect<Extends<ours.McpServer, sdk.McpServer>>,
  Expect<Extends<ours.AuthMethod, sdk.AuthMethod>>,
];

test("values typed with the official SDK's types go through our validators and come back typed for both", () => {
  const fromSdkCode: sdk.PromptRequest = { sessionId: "s", prompt: [{ type: "text", text: "hi" }] };
  const parsed: sdk.PromptRequest = schemas.PromptRequest.parse(fromSdkCode);
  const update: sdk.SessionNotification = schemas.SessionNotification.parse({
    sessionId: "s",
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "x" } },
  });
  assert.equal(parsed, fromSdkCode);
  assert.equal(update.update.sessionUpdate, "agent_message_chunk");
});
