/** The session lifecycle: new, load (replays everything first), resume (replays nothing), list, close, delete. */
import { hasCapability } from "@acpkit/sdk";
import { TURN_CONTENT_UPDATES, updateKindOf } from "@acpkit/sdk/wire";
import { SPEC } from "@acpkit/sdk/wire";
import { CheckFailed, NotExercised } from "../../results.js";
import { chunkText, describeError, type AgentProcess } from "../agent-process.js";
import {
  CANCEL_DEADLINE_MS,
  LATE_UPDATE_GRACE_MS,
  SETTLE_MS,
  sleep,
  type AgentScenario,
  type AgentScenarioContext,
} from "../scenario.js";

const needs = (path: string[], label: string) => (init: Record<string, unknown>) =>
  hasCapability(init.agentCapabilities, path) ? undefined : `the agent does not advertise ${label}`;
const word = () => `acp-check-${Math.random().toString(36).slice(2, 10)}`;
const squash = (text: string) => text.replace(/\s+/g, " ").trim();

export const newSessionScenario: AgentScenario = {
  id: "session.new",
  title: "session/new: a unique session id, consistent modes",
  spec: `${SPEC}/session-setup#creating-a-session`,
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    const second = await agent.newSession(ctx.workdir);
    if (second === sessionId)
      throw new CheckFailed(
        `two session/new calls both answered session id ${JSON.stringify(sessionId)}. The agent MUST answer ` +
          `each session/new with a unique session id.`,
      );
    const answer = agent.peer.events
      .filter((e) => e.from === "agent" && e.method === "session/new" && e.type === "response")
      .at(-1);
    const modes = (
      answer?.result as
        { modes?: { currentModeId?: string; availableModes?: Array<{ id: string }> } | null } | undefined
    )?.modes;
    if (modes && !modes.availableModes?.some((m) => m.id === modes.currentModeId)) {
      throw new CheckFailed(
        `session/new answered currentModeId ${JSON.stringify(modes.currentModeId)}, which is not one of its ` +
          `availableModes (${modes.availableModes?.map((m) => m.id).join(", ")}).`,
      );
    }
    return `sessions ${sessionId} and ${second}`;
  },
};

/** A session with one finished turn in a first process; the process is stopped. */
async function sessionWithHistory(
  ctx: AgentScenarioContext,
): Promise<{ sessionId: string; marker: string; answer: string }> {
  const marker = word();
  const { agent, sessionId } = await ctx.session();
  const turn = agent.prompt(sessionId, ctx.prompt({ word: marker }));
  await agent.finish(turn, "the prompt that gives the session a history");
  const answer = chunkText(agent.updates(sessionId, turn.since));
  await agent.stop();
  return { sessionId, marker, answer };
}

export const loadScenario: AgentScenario = {
  id: "session.load",
  title: "session/load (in a new process): the whole history replayed before the answer",
  spec: `${SPEC}/session-setup#loading-sessions`,
  skip: needs(["loadSession"], "loadSession"),
  async run(ctx) {
    const { sessionId, marker, answer } = await sessionWithHistory(ctx);
    const agent = await ctx.start();
    agent.adopt(sessionId, ctx.workdir);
    const since = agent.peer.events.length;
    const loaded = await agent.call(
      "session/load",
      { sessionId, cwd: ctx.workdir, mcpServers: [] },
      ctx.target.startupTimeoutMs,
    );
    if (loaded.error !== undefined)
      throw new CheckFailed(
        `session/load of session ${sessionId} (created by an earlier process of the same agent, one turn ` +
          `long) failed: ${describeError(loaded.error)}. An agent that advertises loadSession MUST load its ` +
          `earlier sessions.`,
      );
    const replayed = agent.updates(sessionId, since, agent.peer.events.indexOf(loaded));
    const user = chunkText(replayed, "user_message_chunk");
    const text = chunkText(replayed);
    await sleep(LATE_UPDATE_GRACE_MS);
    if (!user.includes(marker)) {
      throw new CheckFailed(
        `session/load answered after replaying ${replayed.length} update${replayed.length === 1 ? "" : "s"}, ` +
          `without the user's prompt (the word ${marker} in a user_message_chunk). The agent MUST replay the ` +
          `entire conversation with session/update before responding to session/load.`,
      );
    }
    if (answer !== "" && squash(text) !== squash(answer)) {
      throw new CheckFailed(
        `session/load replayed the agent's answer as ${JSON.stringify(squash(text).slice(0, 120))}, but the ` +
          `turn had streamed ${JSON.stringify(squash(answer).slice(0, 120))}. The agent MUST replay the entire ` +
          `conversation.`,
      );
    }
    return `${replayed.length} updates replayed before the answer`;
  },
};

export const resumeScenario: AgentScenario = {
  id: "session.resume",
  title: "session/resume (in a new process): nothing replayed, the session goes on",
  spec: `${SPEC}/session-setup#resuming-sessions`,
  skip: needs(["sessionCapabilities", "resume"], "sessionCapabilities.resume"),
  async run(ctx) {
    const { sessionId } = await sessionWithHistory(ctx);
    const agent = await ctx.start();
    agent.adopt(sessionId, ctx.workdir);
    const since = agent.peer.events.length;
    const resumed = await agent.call(
      "session/resume",
      { sessionId, cwd: ctx.workdir, mcpServers: [] },
      ctx.target.startupTimeoutMs,
    );
    if (resumed.error !== undefined)
      throw new CheckFailed(
        `session/resume of session ${sessionId} (created by an earlier process of the same agent) failed: ` +
          `${describeError(resumed.error)}.`,
      );
    const replayed = agent
      .updates(sessionId, since, agent.peer.events.indexOf(resumed))
      .filter((e) => TURN_CONTENT_UPDATES.has(updateKindOf(e)!));
    if (replayed.length > 0)
      throw new CheckFailed(
        `session/resume sent ${replayed.length} ${updateKindOf(replayed[0]!)} update(s) of the history before ` +
          `answering. Unlike session/load, the agent MUST NOT replay the conversation on session/resume.`,
      );
    const turn = agent.prompt(sessionId, ctx.prompt({ word: word() }));
    await agent.finish(turn, "a prompt in the resumed session");
    return "resumed without replay; a new turn answered";
  },
};

/** Every session a `session/list` returns, following `nextCursor`; duplicates are a failure. */
async function listAll(
  agent: AgentProcess,
  params: Record<string, unknown>,
  timeoutMs: number,
): Promise<{ sessions: Array<{ sessionId: string; cwd?: string }>; pages: number }> {
  const sessions: Array<{ sessionId: string; cwd?: string }> = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const answer = await agent.call("session/list", { ...params, ...(cursor ? { cursor } : {}) }, timeoutMs);
    if (answer.error !== undefined)
      throw new CheckFailed(
        `session/list failed${cursor ? ` on a cursor it gave itself (${JSON.stringify(cursor)})` : ""}: ` +
          `${describeError(answer.error)}`,
      );
    const result = (answer.result ?? {}) as {
      sessions?: Array<{ sessionId: string; cwd?: string }>;
      nextCursor?: string | null;
    };
    pages++;
    for (const session of result.sessions ?? []) {
      if (sessions.some((s) => s.sessionId === session.sessionId))
        throw new CheckFailed(
          `session/list returned session ${session.sessionId} twice across its pages. A cursor MUST continue ` +
            `where the previous page ended.`,
        );
      sessions.push(session);
    }
    if (result.nextCursor == null) return { sessions, pages };
    if (pages >= 100)
      throw new CheckFailed("session/list kept returning a nextCursor for 100 pages: the cursor does not advance");
    cursor = result.nextCursor;
  }
}

export const listScenario: AgentScenario = {
  id: "session.list",
  title: "session/list: filters by cwd, pages with a cursor to the end",
  spec: `${SPEC}/session-list`,
  skip: needs(["sessionCapabilities", "list"], "sessionCapabilities.list"),
  async run(ctx) {
    const here = ctx.subdir("here");
    const elsewhere = ctx.subdir("elsewhere");
    const agent = await ctx.start();
    const mine = [await agent.newSession(here), await agent.newSession(here)];
    const other = await agent.newSession(elsewhere);
    let turns = 0;
    for (const sessionId of [...mine, other]) {
      const turn = agent.prompt(sessionId, ctx.prompt({ word: word() }));
      if (
        await turn.response.then(
          (r) => r.error === undefined,
          () => false,
        )
      )
        turns++;
    }
    const { sessions, pages } = await listAll(agent, { cwd: here }, ctx.target.startupTimeoutMs);
    const foreign = sessions.filter((s) => s.cwd !== undefined && s.cwd !== here);
    if (foreign.length > 0 || sessions.some((s) => s.sessionId === other)) {
      throw new CheckFailed(
        `session/list with cwd ${here} also returned sessions of other directories ` +
          `(${foreign.map((s) => s.cwd).join(", ") || other}). The cwd filter MUST only return sessions with ` +
          `that working directory.`,
      );
    }
    const missing = mine.filter((id) => !sessions.some((s) => s.sessionId === id));
    if (missing.length > 0) {
      if (turns < 3)
        throw new NotExercised(
          `session/list did not return the sessions just created (${missing.join(", ")}), which had no ` +
            `finished turn; the agent may list only sessions with a history`,
        );
      throw new CheckFailed(
        `session/list with cwd ${here} did not return ` +
          `session${missing.length > 1 ? "s" : ""} ${missing.join(", ")} created in that directory.`,
      );
    }
    const invalid = await agent.call(
      "session/list",
      { cwd: here, cursor: "acp-check-not-a-cursor" },
      ctx.target.startupTimeoutMs,
    );
    if (invalid.error === undefined)
      ctx.warn(
        'session/list accepted a cursor it never gave ("acp-check-not-a-cursor"); agents SHOULD return an ' +
          "error for an invalid cursor",
      );
    return `${sessions.length} session(s) in ${pages} page(s)`;
  },
};

/** How many sessions the paging check creates at most: more than the reference agent's page (50) and most agents'. */
const PAGING_SESSIONS = 60;

export const listPagingScenario: AgentScenario = {
  id: "session.list.paging",
  title: "session/list: more sessions than one page: nextCursor followed to the end, every session exactly once",
  spec: `${SPEC}/session-list#pagination`,
  skip: needs(["sessionCapabilities", "list"], "sessionCapabilities.list"),
  async run(ctx) {
    const here = ctx.subdir("many");
    const agent = await ctx.start();
    const created: string[] = [];
    let paged = false;
    // Sessions one by one until the first page of this directory has a nextCursor (the page is full).
    while (!paged && created.length < PAGING_SESSIONS) {
      created.push(await agent.newSession(here));
      const answer = await agent.call("session/list", { cwd: here }, ctx.target.startupTimeoutMs);
      if (answer.error !== undefined) throw new CheckFailed(`session/list failed: ${describeError(answer.error)}`);
      const first = (answer.result ?? {}) as { sessions?: Array<{ sessionId: string }>; nextCursor?: string | null };
      if (first.nextCursor != null) paged = true;
      else if (created.length === 5 && !(first.sessions ?? []).some((s) => created.includes(s.sessionId))) {
        throw new NotExercised(
          "session/list does not return sessions without a finished turn (none of 5 new sessions was listed), " +
            "so more sessions than a page could not be made",
        );
      }
    }
    if (!paged)
      throw new NotExercised(
        `session/list returned all ${created.length} sessions of one directory in a single page: its cursor ` +
          `could not be exercised`,
      );
    const { sessions, pages } = await listAll(agent, { cwd: here }, ctx.target.startupTimeoutMs);
    const missing = created.filter((id) => !sessions.some((s) => s.sessionId === id));
    if (missing.length > 0) {
      throw new CheckFailed(
        `following nextCursor through ${pages} pages, session/list never returned ${missing.length} of the ` +
          `${created.length} sessions created in ${here} (e.g. ${missing.slice(0, 3).join(", ")}). Each page ` +
          `MUST continue where the previous one ended, without skipping sessions.`,
      );
    }
    return `${created.length} sessions in ${pages} pages, each listed once`;
  },
};

export const closeScenario: AgentScenario = {
  id: "session.close",
  title: "session/close: ends the running turn as cancelled, then frees the session",
  spec: `${SPEC}/session-setup#closing-active-sessions`,
  skip: needs(["sessionCapabilities", "close"], "sessionCapabilities.close"),
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    const turn = agent.prompt(sessionId, ctx.prompt({ ms: 5000 }));
    await agent.peer
      .waitFor((e) => e.type === "notification" && (e.params as { sessionId?: unknown }).sessionId === sessionId, {
        what: "a first update",
        timeoutMs: 500,
      })
      .catch(() => {});
    await sleep(SETTLE_MS);
    if (agent.peer.events.some((e) => e.type === "response" && e.id === turn.request.id))
      throw new NotExercised(`the turn ended by itself before session/close could be sent${ctx.hint()}`);
    const closed = await agent.call("session/close", { sessionId }, CANCEL_DEADLINE_MS);
    if (closed.error !== undefined)
      throw new CheckFailed(`session/close of an active session failed: ${describeError(closed.error)}`);
    const answer = await turn.response.catch(() => undefined);
    if (!answer)
      throw new CheckFailed(
        `the turn running when session/close was answered was never answered. The agent MUST cancel ongoing ` +
          `work on session/close as if session/cancel had been called, and answer the prompt with stopReason ` +
          `"cancelled".`,
      );
    const stopReason = (answer.result as { stopReason?: unknown } | undefined)?.stopReason;
    if (stopReason !== "cancelled")
      throw new CheckFailed(
        `the turn running during session/close was answered ` +
          `${
            answer.error !== undefined
              ? `with an error ` + `(${describeError(answer.error)})`
              : `stopReason ${JSON.stringify(stopReason)}`
          }. session/close MUST cancel ongoing work as session/cancel does: stopReason "cancelled".`,
      );
    const after = await agent
      .call("session/prompt", { sessionId, prompt: [{ type: "text", text: "hello" }] }, ctx.target.turnTimeoutMs)
      .catch(() => undefined);
    return after?.error !== undefined ? "turn cancelled; a prompt to the closed session is refused" : "turn cancelled";
  },
};

export const deleteScenario: AgentScenario = {
  id: "session.delete",
  title: "session/delete: the session is gone from session/list",
  spec: `${SPEC}/session-delete`,
  skip: needs(["sessionCapabilities", "delete"], "sessionCapabilities.delete"),
  async run(ctx) {
    const { agent, sessionId } = await ctx.session();
    const deleted = await agent.call("session/delete", { sessionId }, ctx.target.startupTimeoutMs);
    if (deleted.error !== undefined) throw new CheckFailed(`session/delete failed: ${describeError(deleted.error)}`);
    if (!hasCapability(agent.capabilities, ["sessionCapabilities", "list"]))
      return "deleted (no session/list to confirm)";
    const { sessions } = await listAll(agent, { cwd: ctx.workdir }, ctx.target.startupTimeoutMs);
    if (sessions.some((s) => s.sessionId === sessionId))
      throw new CheckFailed(`session/list still returns session ${sessionId} after session/delete answered success.`);
    return "deleted, and no longer listed";
  },
};
