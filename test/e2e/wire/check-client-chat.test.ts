/**
 * `acp check client` end to end on `acp chat` driven headless (non-TTY): with a non-interactive policy every check
 * is exercised; with the default policy (it asks the user) a pending permission request is answered "cancelled"
 * when the turn is cancelled. Real client processes, a real relay process as their agent, a real socket.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { after, test } from "node:test";
import { ACP, acp, results, tempDir } from "./support.js";
import { ALWAYS_EXERCISED } from "./check-client-scenarios.js";

const dataDir = tempDir("acpkit-check-client-data-");
const env = { ACPKIT_DATA_DIR: dataDir };
after(() => rmSync(dataDir, { recursive: true, force: true }));

test(
  "acp check client passes on acp chat --permissions allow-all driven headless, every option kind answered",
  { timeout: 600_000 },
  async () => {
    const run = await acp(
      [
        "check",
        "client",
        "--format",
        "json",
        "--timeout",
        "60",
        "--stdin",
        "hi",
        "--",
        process.execPath,
        ACP,
        "chat",
        "--permissions",
        "allow-all",
        "--agent",
        "{agent}",
      ],
      { env },
    );
    const byId = results(run);
    assert.equal(run.code, 0, run.stdout);
    for (const id of ALWAYS_EXERCISED) assert.equal(byId.get(id)?.status, "passed", `${id}: ${byId.get(id)?.message}`);
    assert.match(byId.get("permission.options")!.message!, /answered allow_once, then reject_once/);
    assert.equal(byId.get("permission.cancelled")!.status, "not-exercised");
  },
);

test(
  "acp chat asking the user: its pending permission request is answered cancelled when the turn is cancelled",
  { timeout: 120_000 },
  async () => {
    const run = await acp(
      [
        "check",
        "client",
        "--format",
        "json",
        "--timeout",
        "60",
        "--only",
        "permission.cancelled",
        "--stdin",
        "hi",
        "--",
        process.execPath,
        ACP,
        "chat",
        "--agent",
        "{agent}",
      ],
      { env },
    );
    const byId = results(run);
    assert.equal(run.code, 0, run.stdout);
    assert.equal(byId.get("permission.cancelled")!.status, "passed", byId.get("permission.cancelled")!.message);
  },
);
