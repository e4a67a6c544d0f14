/**
 * The terminal host's bounds: the output kept across all terminals of a session (and of the host) stays under a
 * total cap beside each terminal's own limit; a gate decides each command; malformed commands get -32602.
 */
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { RequestError } from "../../jsonrpc/request-error.js";
import { TerminalHost } from "./terminal-host.js";

const base = realpathSync(mkdtempSync(join(tmpdir(), "acpkit-term-limits-")));
after(() => rmSync(base, { recursive: true, force: true }));
const node = process.execPath;
const roots = (sessionId: string) => (sessionId === "unknown-session" ? undefined : [base]);
/** A command that prints `bytes` bytes of "x" and exits. */
const print = (bytes: number) => ({ command: node, args: ["-e", `process.stdout.write("x".repeat(${bytes}))`] });

test(
  "the output kept across a session's terminals stays under " + "the session cap; a release frees its share",
  async () => {
    const host = new TerminalHost({ roots, maxSessionOutputBytes: 100_000, maxOutputBytes: 80_000 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      const { terminalId } = await host.createTerminal({ sessionId: "s1", ...print(60_000) });
      await host.waitForTerminalExit({ sessionId: "s1", terminalId });
      ids.push(terminalId);
    }
    const kept = ids.map((terminalId) => host.terminalOutput({ sessionId: "s1", terminalId }).output.length);
    assert.ok(kept.reduce((a, b) => a + b) <= 100_000, `kept ${kept.join(" + ")}`);
    assert.ok(
      ids.some((terminalId) => host.terminalOutput({ sessionId: "s1", terminalId }).truncated),
      "the overflow is reported as truncation",
    );
    assert.equal(
      host.outputBytes("s1"),
      kept.reduce((a, b) => a + b),
    );
    // Another session has its own budget.
    const other = await host.createTerminal({ sessionId: "s2", ...print(60_000) });
    await host.waitForTerminalExit({ sessionId: "s2", ...other });
    assert.equal(host.terminalOutput({ sessionId: "s2", ...other }).output.length, 60_000);
    for (const terminalId of ids) await host.releaseTerminal({ sessionId: "s1", terminalId });
    assert.equal(host.outputBytes("s1"), 0);
    const fresh = await host.createTerminal({ sessionId: "s1", ...print(60_000) });
    await host.waitForTerminalExit({ sessionId: "s1", ...fresh });
    assert.equal(
      host.terminalOutput({ sessionId: "s1", ...fresh }).output.length,
      60_000,
      "released output no longer counts",
    );
    await host.releaseAll();
  },
);

test("the host's total cap bounds all sessions together", async () => {
  const host = new TerminalHost({ roots, maxTotalOutputBytes: 50_000 });
  for (const sessionId of ["a", "b", "c"]) {
    const { terminalId } = await host.createTerminal({ sessionId, ...print(40_000) });
    await host.waitForTerminalExit({ sessionId, terminalId });
  }
  assert.ok(host.outputBytes() <= 50_000, `kept ${host.outputBytes()}`);
  await host.releaseAll();
  assert.equal(host.outputBytes(), 0);
});

test("the gate decides each command after the cwd check; a refusal is -32602 and nothing runs", async () => {
  const seen: string[] = [];
  const host = new TerminalHost({
    roots,
    gate: (access) => {
      if (access.kind !== "terminal") return false;
      seen.push(`${access.command} ${access.args.join(" ")} in ${access.cwd}`);
      return access.args[0] === "-e" && access.args[1] === "1"
        ? true
        : "terminals are refused by --permissions allow-reads";
    },
  });
  const ok = await host.createTerminal({ sessionId: "s", command: node, args: ["-e", "1"] });
  await host.releaseTerminal({ sessionId: "s", ...ok });
  await assert.rejects(
    host.createTerminal({ sessionId: "s", command: node, args: ["-e", "2"] }),
    (error: unknown) =>
      error instanceof RequestError &&
      error.code === -32602 &&
      (error.data as { reason?: string }).reason === "denied" &&
      /allow-reads/.test(error.message),
  );
  await assert.rejects(
    host.createTerminal({ sessionId: "s", command: node, cwd: "/" }),
    (error: unknown) => error instanceof RequestError && error.code === -32602,
  );
  assert.deepEqual(seen, [`${node} -e 1 in ${base}`, `${node} -e 2 in ${base}`]);
  assert.deepEqual(host.terminals(), []);
});

test("NUL bytes and malformed args or env get -32602 with a reason, not -32603", async () => {
  const host = new TerminalHost({ roots });
  const invalid = (reason: string) => (error: unknown) =>
    error instanceof RequestError && error.code === -32602 && (error.data as { reason?: string }).reason === reason;
  await assert.rejects(host.createTerminal({ sessionId: "s", command: "ec\0ho" }), invalid("nul_byte"));
  await assert.rejects(host.createTerminal({ sessionId: "s", command: "echo", args: ["a\0b"] }), invalid("nul_byte"));
  await assert.rejects(
    host.createTerminal({ sessionId: "s", command: "echo", env: [{ name: "A", value: "b\0" }] }),
    invalid("nul_byte"),
  );
  await assert.rejects(
    host.createTerminal({ sessionId: "s", command: "echo", env: [{ name: "A=B", value: "c" }] }),
    invalid("bad_env_name"),
  );
  await assert.rejects(
    host.createTerminal({ sessionId: "s", command: "echo", args: [3 as unknown as string] }),
    invalid("bad_args"),
  );
  await assert.rejects(
    host.createTerminal({ sessionId: "s", command: "echo", cwd: `${base}/\0` }),
    invalid("nul_byte"),
  );
  await assert.rejects(
    host.createTerminal({ sessionId: "s", command: "x".repeat(5000) }),
    (error: unknown) => error instanceof RequestError && error.code === -32602,
  );
  await assert.rejects(
    host.createTerminal({ sessionId: "unknown-session", command: "echo" }),
    (error: unknown) => error instanceof RequestError && error.code === -32002 && /unknown-session/.test(error.message),
  );
  assert.deepEqual(host.terminals(), []);
});
