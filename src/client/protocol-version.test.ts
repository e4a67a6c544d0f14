import assert from "node:assert/strict";
import { test } from "node:test";
import { checkProtocolVersion } from "./protocol-version.js";

test(
  "the version asked for is fine; an older spoken one warns; one not spoken or not a version refuses, saying " + "why",
  () => {
    assert.deepEqual(checkProtocolVersion(1, 1), { ok: true });
    assert.deepEqual(checkProtocolVersion(2, 1, [1, 2]), {
      ok: true,
      warning: "the agent answered with protocol version 1, not the 2 asked for; continuing in version 1",
    });
    const newer = checkProtocolVersion(1, 2);
    assert.equal(newer.ok, false);
    assert.match(
      (newer as { message: string }).message,
      /^the agent answered with protocol version 2, newer than any this client speaks \(it asked for 1; it speaks 1\)\. Use an agent release/,
    );
    assert.match(
      (checkProtocolVersion(1, 0) as { message: string }).message,
      /protocolVersion 0, which is not a protocol version/,
    );
    assert.match(
      (checkProtocolVersion(1, "1") as { message: string }).message,
      /protocolVersion "1", which is not a protocol version/,
    );
    assert.match((checkProtocolVersion(2, 3, [1, 2]) as { message: string }).message, /version 3, newer than any/);
  },
);
