import assert from "node:assert/strict";
import { test } from "node:test";
import { userDataDir } from "./data-dir.js";

test("the data directory follows each platform's convention and can be overridden", () => {
  const home = "/home/u";
  assert.equal(userDataDir("acpkit", { env: {}, platform: "linux", homedir: home }), "/home/u/.local/share/acpkit");
  assert.equal(
    userDataDir("acpkit", { env: { XDG_DATA_HOME: "/x/data" }, platform: "linux", homedir: home }),
    "/x/data/acpkit",
  );
  assert.equal(
    userDataDir("acpkit", { env: { XDG_DATA_HOME: "rel" }, platform: "linux", homedir: home }),
    "/home/u/.local/share/acpkit",
  );
  assert.equal(
    userDataDir("acpkit", { env: {}, platform: "darwin", homedir: "/Users/u" }),
    "/Users/u/Library/Application Support/acpkit",
  );
  assert.equal(
    userDataDir("acpkit", {
      env: { APPDATA: "C:\\Users\\u\\AppData\\Roaming" },
      platform: "win32",
      homedir: "C:\\Users\\u",
    }),
    "C:\\Users\\u\\AppData\\Roaming\\acpkit",
  );
  assert.equal(
    userDataDir("acpkit", { env: { ACPKIT_DATA_DIR: "/custom" }, platform: "linux", homedir: home }),
    "/custom",
  );
});
