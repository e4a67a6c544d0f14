/**
 * The programs over a real `acp serve` (reference agent, shared sessions on by default): `acp sessions URL` lists a
 * session `acp exec` drives (a turn running, who is attached), as text and JSON; it says what is wrong with a bad
 * token, a missing URL, or a server started with `--no-share`.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { acp } from "../wire/support.js";
import { ACP_MAIN, startServe, type ServeProcess } from "../remote/support/serve-process.js";

const TOKEN = "sessions-cli-token";
const STEP = { timeout: 120_000 };

describe("acp sessions", () => {
  let serve: ServeProcess;
  let plain: ServeProcess;
  before(async () => {
    serve = await startServe(["--token", TOKEN]);
    plain = await startServe(["--token", TOKEN, "--no-share"]);
  });
  after(async () => {
    await serve?.stop();
    await plain?.stop();
  });

  it("lists the session acp exec drives, with the turn running and who is attached", STEP, async () => {
    // The turn outlasts the test (the exec is stopped at its end): under load, a turn of a few seconds could end
    // between the listing that finds it running and the next one, which must find it running too.
    const exec = spawn(process.execPath, [ACP_MAIN, "exec", "--agent", serve.url, "--token", TOKEN, "/slow 100000"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let execErr = "";
    exec.stderr.setEncoding("utf8").on("data", (chunk: string) => void (execErr = (execErr + chunk).slice(-4000)));
    exec.stdout.resume();
    let exited: number | null | undefined;
    const done = new Promise((resolve) => exec.once("close", (code) => resolve((exited = code))));
    try {
      let listed: any;
      for (let i = 0; i < 200 && exited === undefined; i++) {
        const run = await acp(["sessions", "--json", "--token", TOKEN, serve.url]);
        assert.equal(run.code, 0, run.stderr);
        listed = JSON.parse(run.stdout).sessions.find((session: any) => session.turnRunning);
        if (listed) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(listed, `the exec's session shows up with its turn running (exec exit ${exited}, stderr: ${execErr})`);
      assert.deepEqual(
        listed.participants.map((who: any) => [who.role, who.name, who.transport]),
        [["controller", "acp-exec", "websocket"]],
      );
      const text = await acp(["sessions", serve.url], { env: { ACP_TOKEN: TOKEN } });
      assert.equal(text.code, 0, text.stderr);
      assert.match(
        text.stdout,
        new RegExp(`^${listed.sessionId}  turn running, \\d+ updates\\n  controller acp-exec`, "m"),
      );
    } finally {
      exec.kill("SIGTERM");
      await done;
    }
  });

  it("says what is wrong: a bad token, no URL, a server that does not share", STEP, async () => {
    const bad = await acp(["sessions", "--token", "wrong", serve.url]);
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /answered 401.*give the server's token: --token or \$ACP_TOKEN/);
    const none = await acp(["sessions"]);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /give the server's URL/);
    const off = await acp(["sessions", "--token", TOKEN, plain.url]);
    assert.equal(off.code, 1);
    assert.match(off.stderr, /answered 404.*shared sessions on/);
  });
});
