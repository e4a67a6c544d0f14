import assert from "node:assert/strict";
import { test } from "node:test";
import { REMOTE_AGENT_CONTROL, type RemoteAgentControl } from "../../acp/agent-connector.js";
import { createMemoryPair } from "../../transports/memory.js";
import { CONNECTION_LABEL_ENV, stdioAgentConnector } from "./stdio-agent-connector.js";

/** Starts `sh` as the agent of a server stream (with `connectionId` when given); resolves with its stderr lines. */
async function agentStderr(connectionId: string | undefined): Promise<string[]> {
  const [serverSide] = createMemoryPair();
  if (connectionId !== undefined) {
    const control: RemoteAgentControl = {
      connectionId,
      transport: "http",
      outputBacklogged: () => false,
      pauseInput: () => {},
      resumeInput: () => {},
    };
    Object.assign(serverSide, { [REMOTE_AGENT_CONTROL]: control });
  }
  const lines: string[] = [];
  const connector = stdioAgentConnector({
    argv: ["/bin/sh", "-c", `echo "label=[\${${CONNECTION_LABEL_ENV}-unset}]" >&2`],
    onStderrLine: (line) => lines.push(line),
  });
  const { closed } = connector.connect(serverSide) as { closed: Promise<void> };
  await closed;
  return lines;
}

test(
  "each agent process carries its connection's label (the id's first 8 characters) in its environment",
  { skip: process.platform === "win32" ? "no /bin/sh" : undefined },
  async () => {
    assert.deepEqual(await agentStderr("AbCdEfGh_rest-of-the-id-xyz"), ["label=[AbCdEfGh]"]);
    // A stream that is not a server's (no connection): no label at all.
    assert.deepEqual(await agentStderr(undefined), ["label=[unset]"]);
  },
);
