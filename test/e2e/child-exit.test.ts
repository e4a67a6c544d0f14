import assert from "node:assert/strict";
import { test } from "node:test";
import { ClientSideConnection, ConnectionClosedError } from "../../src/entries/index.js";
import { AgentExitedError, spawnAgentStream } from "../../src/entries/node.js";

const client = () => ({
  requestPermission: () => ({ outcome: { outcome: "cancelled" as const } }),
  sessionUpdate: () => {},
});
const init = { protocolVersion: 1, clientCapabilities: {} };

test("an agent that exits mid-request: the pending call says which code it exited with", async () => {
  const { stream } = spawnAgentStream(
    process.execPath,
    ["-e", "setTimeout(() => process.exit(3), 50); process.stdin.resume()"],
    { stderr: "ignore" },
  );
  const connection = new ClientSideConnection(client, stream);
  await assert.rejects(connection.initialize(init), (error) => {
    assert.ok(error instanceof ConnectionClosedError);
    assert.ok(error.cause instanceof AgentExitedError);
    assert.match(error.message, /exited with code 3/);
    return true;
  });
});

test("an agent killed by a signal: the pending call names the signal", async () => {
  const { stream, child } = spawnAgentStream(process.execPath, ["-e", "process.stdin.resume()"], { stderr: "ignore" });
  const connection = new ClientSideConnection(client, stream);
  const pending = connection.initialize(init);
  setTimeout(() => child.kill("SIGKILL"), 50);
  await assert.rejects(
    pending,
    (error) => error instanceof ConnectionClosedError && /killed by SIGKILL/.test(error.message),
  );
});

test("an agent that exits cleanly after end of input: a plain end of input", async () => {
  const { stream } = spawnAgentStream(
    process.execPath,
    [
      "-e",
      "process.stdin.resume(); process.stdin.on('end', () => process.exit(0)); setTimeout(() => process.exit(0), 50)",
    ],
    { stderr: "ignore" },
  );
  const connection = new ClientSideConnection(client, stream);
  await assert.rejects(
    connection.initialize(init),
    (error) => error instanceof ConnectionClosedError && /end of input/.test(error.message),
  );
});
