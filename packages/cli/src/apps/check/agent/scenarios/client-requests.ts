/**
 * What an agent asks of its client: permission (and respecting a rejection), files read and written through the
 * client with absolute paths inside the session's roots, terminals created and always released.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WireEvent } from "@acpkit/sdk/wire";
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed, NotExercised } from "../../results.js";
import { rejectFirst, type AgentProcess, type Turn } from "../agent-process.js";
import { sleep, type AgentScenario } from "../scenario.js";

/** The agent's requests of one method during a turn (up to its answer, plus `extraMs` after it). */
function requestsOf(agent: AgentProcess, turn: Turn, method: string): WireEvent[] {
  return agent.peer.events.filter(
    (e) => e.index > turn.since && e.from === "agent" && e.type === "request" && e.method === method,
  );
}

const pathOf = (event: WireEvent) => (event.params as { path?: unknown }).path;

export const permissionScenario: AgentScenario = {
  id: "permission.request",
  title: "session/request_permission: options offered; an allowed change is made, a rejected one is not",
  spec: `${SPEC}/tool-calls#requesting-permission`,
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    const allowed = "acp-check-allowed.txt";
    const first = agent.prompt(sessionId, ctx.prompt({ path: allowed, text: "allowed" }));
    await agent.finish(first, "the prompt that needs permission");
    const asked = agent.permissionRequests.filter((e) => e.index > first.since);
    if (asked.length === 0) throw new NotExercised(`the agent did not ask permission${ctx.hint()}`);
    const rejected = "acp-check-rejected.txt";
    agent.permissionPolicy = rejectFirst;
    const second = agent.prompt(sessionId, ctx.prompt({ path: rejected, text: "rejected" }));
    await agent.finish(second, "the second prompt that needs permission");
    if (!agent.permissionRequests.some((e) => e.index > second.since))
      throw new NotExercised(
        "the agent asked permission the first time but not the second (it may remember the answer)",
      );
    const target = join(ctx.workdir, rejected);
    const wrote = requestsOf(agent, second, "fs/write_text_file").some((e) => pathOf(e) === target);
    if (wrote || existsSync(target))
      throw new CheckFailed(
        `the agent wrote ${target} although the client rejected the permission request for it. A rejected ` +
          `tool call MUST NOT be carried out.`,
      );
    if (!existsSync(join(ctx.workdir, allowed)))
      ctx.warn(`the agent asked permission to write ${allowed} and was allowed, but the file was not written`);
    const kinds = [
      ...new Set(
        asked.flatMap((e) => ((e.params as { options?: Array<{ kind: string }> }).options ?? []).map((o) => o.kind)),
      ),
    ];
    return `options offered: ${kinds.join(", ")}; the rejected change was not made`;
  },
};

export const fsReadScenario: AgentScenario = {
  id: "fs.read",
  title: "fs/read_text_file: an absolute path inside the session's cwd",
  spec: `${SPEC}/file-system#reading-files`,
  async run(ctx) {
    const name = "acp-check-read.txt";
    const file = join(ctx.workdir, name);
    writeFileSync(file, "first line\nsecond line\nthird line\n");
    const { agent, sessionId } = await ctx.session();
    const turn = agent.prompt(sessionId, ctx.prompt({ path: name }));
    await agent.finish(turn, "the prompt that reads a file");
    const reads = requestsOf(agent, turn, "fs/read_text_file");
    if (reads.length === 0)
      throw new NotExercised(`the agent did not call fs/read_text_file (it may read the disk itself)${ctx.hint()}`);
    const paths = reads.map(pathOf);
    if (!paths.includes(file))
      throw new CheckFailed(
        `asked to read ${name} (relative to the session's cwd ${ctx.workdir}), the agent asked the client for ` +
          `${paths.map((p) => JSON.stringify(p)).join(", ")}. Paths MUST be absolute, resolved against the ` +
          `session's cwd.`,
      );
    return `read ${file}`;
  },
};

export const fsWriteScenario: AgentScenario = {
  id: "fs.write",
  title: "fs/write_text_file: an absolute path inside the session's cwd, the content given",
  spec: `${SPEC}/file-system#writing-files`,
  async run(ctx) {
    const name = "acp-check-write.txt";
    const file = join(ctx.workdir, name);
    const text = "hello-from-acp-check";
    const { agent, sessionId } = await ctx.session();
    const turn = agent.prompt(sessionId, ctx.prompt({ path: name, text }));
    await agent.finish(turn, "the prompt that writes a file");
    const writes = requestsOf(agent, turn, "fs/write_text_file");
    if (writes.length === 0)
      throw new NotExercised(`the agent did not call fs/write_text_file (it may write the disk itself)${ctx.hint()}`);
    const mine = writes.find((e) => pathOf(e) === file);
    if (!mine)
      throw new CheckFailed(
        `asked to write ${name} (relative to the session's cwd ${ctx.workdir}), the agent asked the client to ` +
          `write ${writes.map((e) => JSON.stringify(pathOf(e))).join(", ")}. Paths MUST be absolute, resolved ` +
          `against the session's cwd.`,
      );
    const content = (mine.params as { content?: unknown }).content;
    if (typeof content !== "string" || !content.includes(text))
      ctx.warn(`the agent wrote ${JSON.stringify(String(content).slice(0, 80))}, not the text it was given (${text})`);
    if (!existsSync(file) || !readFileSync(file, "utf8").includes(text))
      ctx.warn(`${file} does not hold the text after the write`);
    return `wrote ${file}`;
  },
};

export const terminalScenario: AgentScenario = {
  id: "terminal.lifecycle",
  title: "terminal/create, output or wait_for_exit, and always terminal/release",
  spec: `${SPEC}/terminals`,
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    const turn = agent.prompt(sessionId, ctx.prompt({ command: "echo acp-check-terminal" }));
    await agent.finish(turn, "the prompt that runs a command");
    const creates = requestsOf(agent, turn, "terminal/create");
    if (creates.length === 0)
      throw new NotExercised(`the agent did not call terminal/create (it may run commands itself)${ctx.hint()}`);
    const created = agent.peer.events
      .filter(
        (e) => e.from === "client" && e.type === "response" && e.method === "terminal/create" && e.error === undefined,
      )
      .map((e) => (e.result as { terminalId: string }).terminalId);
    // A terminal may be released right after the turn's answer: give it a moment.
    for (let waited = 0; waited < 2000 && !allReleased(agent, created); waited += 100) await sleep(100);
    const open = created.filter((id) => !releasedIds(agent).has(id));
    if (open.length > 0)
      throw new CheckFailed(
        `the agent never released terminal${open.length > 1 ? "s" : ""} ${open.join(", ")} (still open 2 s ` +
          `after the turn ended). The agent MUST release every terminal with terminal/release when it no longer ` +
          `needs it.`,
      );
    const used = ["terminal/output", "terminal/wait_for_exit"].filter((m) => requestsOf(agent, turn, m).length > 0);
    return `${created.length} terminal(s), ${used.join(" and ") || "no output read"}, released`;
  },
};

function releasedIds(agent: AgentProcess): Set<string> {
  return new Set(
    agent.peer.events
      .filter((e) => e.from === "agent" && e.type === "request" && e.method === "terminal/release")
      .map((e) => String((e.params as { terminalId?: unknown }).terminalId)),
  );
}

function allReleased(agent: AgentProcess, ids: readonly string[]): boolean {
  const released = releasedIds(agent);
  return ids.every((id) => released.has(id));
}
