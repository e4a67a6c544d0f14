import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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
    pingIntervalMs: 15_000,
  });
  setRemoteAgentFlag(flags, "--token", "from-flag");
  assert.equal(remoteAgentSpec("ws://host/acp", flags, { ACP_TOKEN: "from-env" })?.token, "from-flag");
  assert.deepEqual(remoteAgentSpec("http://127.0.0.1:9/acp", noRemoteAgentFlags(), {}), {
    url: "http://127.0.0.1:9/acp",
    pingIntervalMs: 15_000,
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
    assert.deepEqual(remoteAgentSpec("https://host/acp", flags, {}), {
      url: "https://host/acp",
      profile: "http",
      pingIntervalMs: 15_000,
    });
    assert.throws(
      () => setRemoteAgentFlag(noRemoteAgentFlags(), "--profile", "sse"),
      /--profile must be one of auto, websocket, http; got "sse"/,
    );
    assert.throws(
      () => remoteAgentSpec("my-agent --acp", flags, {}),
      /--token, --token-file, --header and --profile are for a remote agent/,
    );
  },
);

test("--token-file: the token is the file's first line, read when the spec is made; ACP_TOKEN is then unused", () => {
  const dir = mkdtempSync(join(tmpdir(), "acp-token-file-"));
  try {
    const file = join(dir, "token");
    writeFileSync(file, "from-file\nignored\n");
    chmodSync(file, 0o600);
    const notes: string[] = [];
    const flags = noRemoteAgentFlags();
    assert.equal(setRemoteAgentFlag(flags, "--token-file", file), true);
    const spec = remoteAgentSpec("https://host/acp", flags, { ACP_TOKEN: "from-env" }, (text) => notes.push(text));
    assert.equal(spec?.token, "from-file");
    assert.equal(notes.length, 0);
    chmodSync(file, 0o644);
    remoteAgentSpec("https://host/acp", flags, {}, (text) => notes.push(text));
    assert.match(notes[0] ?? "", /may be read by other users of this machine: chmod 600 it/);
    assert.throws(() => setRemoteAgentFlag(flags, "--token", "t"), /--token and --token-file contradict/);
    const first = noRemoteAgentFlags();
    setRemoteAgentFlag(first, "--token", "t");
    assert.throws(() => setRemoteAgentFlag(first, "--token-file", file), /--token and --token-file contradict/);
    assert.throws(() => setRemoteAgentFlag(noRemoteAgentFlags(), "--token-file", ""), /--token-file needs a file name/);
    const missing = noRemoteAgentFlags();
    setRemoteAgentFlag(missing, "--token-file", join(dir, "missing"));
    assert.throws(() => remoteAgentSpec("https://host/acp", missing, {}, () => {}), /cannot read it \(ENOENT\)/);
    writeFileSync(file, "\n");
    assert.throws(() => remoteAgentSpec("https://host/acp", flags, {}, () => {}), /its first line is empty/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
