import assert from "node:assert/strict";
import { test } from "node:test";
import type { Logger } from "../../jsonrpc/logger.js";
import { RefusalLog } from "./refusal-log.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger that keeps what it was told to warn. */
function recording(): { logger: Logger; lines: Array<{ message: string; fields?: Record<string, unknown> }> } {
  const lines: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const ignore = () => {};
  return {
    lines,
    logger: {
      debug: ignore,
      info: ignore,
      error: ignore,
      warn: (message, fields) => void lines.push({ message, ...(fields === undefined ? {} : { fields }) }),
    },
  };
}

test("each refusal says who was refused, up to the burst; the rest are summed up when the window ends", async () => {
  const { logger, lines } = recording();
  const log = new RefusalLog(logger, { burst: 3, windowMs: 200 });
  for (let i = 0; i < 10; i++) log.refused(401, "Unauthorized", i < 8 ? "10.0.0.1" : "10.0.0.2");
  log.refused(403, "Forbidden", undefined);
  assert.equal(lines.length, 3, "a flood is not logged line by line");
  assert.deepEqual(lines[0], {
    message: "refused a remote request",
    fields: { status: 401, reason: "Unauthorized", remoteAddress: "10.0.0.1" },
  });
  await sleep(350);
  assert.equal(lines.length, 4, "the summary comes when the window ends, with no further refusal");
  assert.match(lines[3]!.message, /^refused 8 more remote requests within 0 s, not logged one by one$/);
  assert.deepEqual(lines[3]!.fields, {
    byStatus: { 401: 7, 403: 1 },
    addresses: 3,
    busiest: { "10.0.0.1": 5, "10.0.0.2": 2, unknown: 1 },
  });
  // A new window: refusals are logged one by one again.
  log.refused(401, "Unauthorized", "10.0.0.3");
  assert.equal(lines.length, 5);
  assert.equal(lines[4]!.fields!.remoteAddress, "10.0.0.3");
});

test("flush says what was counted at once; nothing when nothing was left out", () => {
  const { logger, lines } = recording();
  const log = new RefusalLog(logger, { burst: 1, windowMs: 60_000 });
  log.flush();
  assert.equal(lines.length, 0);
  log.refused(401, "Unauthorized", "127.0.0.1");
  log.refused(401, "Unauthorized", "127.0.0.1");
  log.flush();
  assert.equal(lines.length, 2);
  assert.match(lines[1]!.message, /^refused 1 more remote requests within 60 s/);
  log.flush();
  assert.equal(lines.length, 2);
});
