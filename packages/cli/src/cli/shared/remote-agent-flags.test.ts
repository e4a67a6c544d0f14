import assert from "node:assert/strict";
import { test } from "node:test";
import { noRemoteAgentFlags, parseHeader, remoteAgentSpec, setRemoteAgentFlag } from "./remote-agent-flags.js";

test("a URL agent with --token and --header becomes a remote spec; ACP_TOKEN is the default token", () => {
  const flags = noRemoteAgentFlags();
  assert.equal(setRemoteAgentFlag(flags, "--header", "X-Team: blue"), true);
  assert.equal(setRemoteAgentFlag(flags, "--header", "X-Trace:  a:b "), true);
  assert.deepEqual(remoteAgentSpec("https://host/acp", flags, { ACP_TOKEN: "from-env" }), {
    url: "https://host/acp",
    token: "from-env",
    headers: { "X-Team": "blue", "X-Trace": "a:b" },
  });
  setRemoteAgentFlag(flags, "--token", "from-flag");
  assert.equal(remoteAgentSpec("ws://host/acp", flags, { ACP_TOKEN: "from-env" })?.token, "from-flag");
  assert.deepEqual(remoteAgentSpec("http://127.0.0.1:9/acp", noRemoteAgentFlags(), {}), {
    url: "http://127.0.0.1:9/acp",
  });
});

test("a command line is not remote; --token or --header without a URL is a usage error", () => {
  assert.equal(remoteAgentSpec("npx agent --acp", noRemoteAgentFlags(), { ACP_TOKEN: "t" }), undefined);
  assert.equal(remoteAgentSpec(undefined, noRemoteAgentFlags(), {}), undefined);
  const flags = noRemoteAgentFlags();
  setRemoteAgentFlag(flags, "--token", "t");
  assert.throws(() => remoteAgentSpec("my-agent", flags, {}), /for a remote agent/);
});

test("bad header lines and empty tokens are refused with the flag's name", () => {
  for (const line of ["no colon", ": empty name", "bad name: x", "X-A: one\r\ntwo"])
    assert.throws(() => parseHeader(line), /--header/, line);
  assert.throws(() => setRemoteAgentFlag(noRemoteAgentFlags(), "--token", ""), /--token/);
  assert.equal(setRemoteAgentFlag(noRemoteAgentFlags(), "--cwd", "x"), false);
});

test(
  "--profile picks the remote transport (exec, chat and connect share it); a bad value or no URL is a usage " + "error",
  () => {
    const flags = noRemoteAgentFlags();
    assert.equal(setRemoteAgentFlag(flags, "--profile", "http"), true);
    assert.deepEqual(remoteAgentSpec("https://host/acp", flags, {}), { url: "https://host/acp", profile: "http" });
    assert.throws(
      () => setRemoteAgentFlag(noRemoteAgentFlags(), "--profile", "sse"),
      /--profile must be one of auto, websocket, http; got "sse"/,
    );
    assert.throws(
      () => remoteAgentSpec("my-agent --acp", flags, {}),
      /--token, --header and --profile are for a remote agent/,
    );
  },
);
