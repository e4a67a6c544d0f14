/** File system requests: served as advertised (line and limit, creating files), refused outside the session's roots. */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed, Skipped } from "../../results.js";
import type { ClientScenario } from "../scenario.js";
import { hasCapability } from "@acpkit/sdk";
import { askPermissionFirst } from "./ask-first.js";

const describe = (error: unknown) => {
  const e = (error ?? {}) as { code?: unknown; message?: unknown };
  return `${String(e.code)} ${String(e.message)}`;
};

export const fsReadScenario: ClientScenario = {
  id: "fs.read",
  title: "fs/read_text_file is served, with line and limit",
  spec: `${SPEC}/file-system#reading-files`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    ctx.requireClient(agent, ["fs", "readTextFile"]);
    const file = join(turn.cwd, `${ctx.marker("read")}.txt`);
    const text = Array.from({ length: 10 }, (_, i) => `line ${i + 1}\n`).join("");
    writeFileSync(file, text);
    try {
      const whole = await agent.ask(
        "fs/read_text_file",
        { sessionId: turn.sessionId, path: file },
        ctx.target.turnTimeoutMs,
      );
      if (whole.error !== undefined)
        throw new CheckFailed(
          `the client advertises fs.readTextFile but answered a read of ${file} (inside the session's cwd) ` +
            `with an error: ${describe(whole.error)}`,
        );
      if ((whole.result as { content?: unknown }).content !== text)
        throw new CheckFailed(
          `fs/read_text_file of ${file} returned ` +
            `${JSON.stringify(String((whole.result as { content?: unknown }).content).slice(0, 80))}, not the ` +
            `file's content`,
        );
      const part = await agent.ask(
        "fs/read_text_file",
        { sessionId: turn.sessionId, path: file, line: 3, limit: 2 },
        ctx.target.turnTimeoutMs,
      );
      const content = (part.result as { content?: unknown } | undefined)?.content;
      if (part.error !== undefined || content !== "line 3\nline 4\n") {
        throw new CheckFailed(
          `fs/read_text_file with line 3 and limit 2 returned ` +
            `${part.error !== undefined ? `an error (${describe(part.error)})` : JSON.stringify(content)}, not ` +
            `"line 3\\nline 4\\n". line is 1-based and limit counts lines.`,
        );
      }
    } finally {
      rmSync(file, { force: true });
    }
    await ctx.finish(agent, turn);
    return "whole file, and line 3 limit 2";
  },
};

export const fsWriteScenario: ClientScenario = {
  id: "fs.write",
  title: "fs/write_text_file is served, creating the file (after a granted permission request)",
  spec: `${SPEC}/file-system#writing-files`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    ctx.requireClient(agent, ["fs", "writeTextFile"]);
    const file = join(turn.cwd, `${ctx.marker("write")}.txt`);
    const content = "written by acp check\nsecond line\n";
    await askPermissionFirst(ctx, agent, turn, { kind: "edit", path: file });
    try {
      const answer = await agent.ask(
        "fs/write_text_file",
        { sessionId: turn.sessionId, path: file, content },
        ctx.target.turnTimeoutMs,
      );
      if (answer.error !== undefined)
        throw new CheckFailed(
          `the client advertises fs.writeTextFile but answered a write of a new file ${file} (inside the ` +
            `session's cwd) with an error: ${describe(answer.error)}. The client MUST create the file if it ` +
            `does not exist.`,
        );
      if (!existsSync(file))
        throw new CheckFailed(`fs/write_text_file of ${file} answered success but the file does not exist`);
      if (readFileSync(file, "utf8") !== content)
        throw new CheckFailed(
          `fs/write_text_file of ${file} answered success but the file holds ` +
            `${JSON.stringify(readFileSync(file, "utf8").slice(0, 80))}`,
        );
    } finally {
      rmSync(file, { force: true });
    }
    await ctx.finish(agent, turn);
    return "new file created with the content";
  },
};

export const fsOutsideScenario: ClientScenario = {
  id: "fs.outside-roots",
  title: "fs requests outside the session's roots (and through ..) are refused",
  spec: `${SPEC}/session-setup#working-directory`,
  async run(ctx) {
    const turn = await ctx.turn();
    const agent = ctx.client.agent!;
    const canRead = hasCapability(agent.clientCapabilities, ["fs", "readTextFile"]);
    const canWrite = hasCapability(agent.clientCapabilities, ["fs", "writeTextFile"]);
    if (!canRead && !canWrite) throw new Skipped("the client advertises no fs capability");
    const secret = join(ctx.outside, "secret.txt");
    const sneaky = `${turn.cwd}/../${basename(ctx.outside)}/secret.txt`;
    if (canRead) {
      for (const path of [secret, sneaky]) {
        const answer = await agent.ask(
          "fs/read_text_file",
          { sessionId: turn.sessionId, path },
          ctx.target.turnTimeoutMs,
        );
        if (answer.error === undefined)
          throw new CheckFailed(
            `the client served fs/read_text_file of ${path}, outside the session's roots (${turn.cwd}). A ` +
              `client MUST confine file access to the session's roots (cwd and additionalDirectories).`,
          );
      }
    }
    if (canWrite) {
      const target = join(ctx.outside, `${ctx.marker("outside")}.txt`);
      const answer = await agent.ask(
        "fs/write_text_file",
        { sessionId: turn.sessionId, path: target, content: "must not be written" },
        ctx.target.turnTimeoutMs,
      );
      const written = existsSync(target);
      rmSync(target, { force: true });
      if (answer.error === undefined || written)
        throw new CheckFailed(
          `the client ${written ? "wrote" : "answered success to a write of"} ${target}, outside the ` +
            `session's roots (${turn.cwd}). A client MUST refuse writes outside the session's roots.`,
        );
    }
    await ctx.finish(agent, turn);
    return `refused: ${[canRead ? "reads (also through ..)" : "", canWrite ? "writes" : ""].filter(Boolean).join(" and ")}`;
  },
};
