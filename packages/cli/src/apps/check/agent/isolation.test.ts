import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { isolatedHome } from "./isolation.js";

test("isolatedHome: HOME, every XDG base directory and ACPKIT_DATA_DIR under the home, the directories created", () => {
  const root = mkdtempSync(join(tmpdir(), "acpkit-isolation-"));
  try {
    const home = join(root, "scenario.home");
    const env = isolatedHome(home, "linux");
    assert.deepEqual(Object.keys(env).sort(), [
      "ACPKIT_DATA_DIR",
      "HOME",
      "XDG_CACHE_HOME",
      "XDG_CONFIG_HOME",
      "XDG_DATA_HOME",
      "XDG_STATE_HOME",
    ]);
    assert.equal(env.HOME, home);
    assert.equal(env.ACPKIT_DATA_DIR, join(home, ".local", "share", "acpkit"));
    for (const [name, dir] of Object.entries(env)) {
      assert.ok(dir.startsWith(`${home}`), `${name} under the home`);
      if (name !== "ACPKIT_DATA_DIR") assert.ok(statSync(dir).isDirectory(), `${name} created`);
    }
    assert.equal(existsSync(env.ACPKIT_DATA_DIR!), false, "the data dir is left for the agent to create");
    const windows = isolatedHome(join(root, "win.home"), "win32");
    assert.equal(windows.USERPROFILE, join(root, "win.home"));
    assert.equal(windows.APPDATA, join(root, "win.home", "AppData", "Roaming"));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
