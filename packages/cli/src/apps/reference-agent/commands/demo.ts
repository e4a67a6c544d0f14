/**
 * Commands that exercise a client's handling of a turn's moving parts: `/plan` (a plan that evolves as its steps
 * complete), `/think` (thought chunks), `/stream N [TEXT]` (exactly N message chunks, all before the response: for
 * throughput tests), `/slow MS` (a long turn: for cancellation tests) and `/fail` (a failed tool call, then an
 * error response).
 */
import { RequestError } from "@acpkit/sdk";
import { sleep } from "../context.js";
import type { RefCommand } from "./registry.js";

/** Most chunks `/stream` sends. */
export const MAX_STREAM = 1_000_000;
const STEP_MS = 20;

export const demoCommands: RefCommand[] = [
  {
    name: "plan",
    description: "Show a plan that evolves as its steps complete",
    async run(ctx) {
      const { plan } = ctx.turn;
      const steps = ["Look at the workspace", "Draft the change", "Check the result"];
      await plan.set(
        steps.map((content, i) => ({ content, priority: i === 0 ? "high" : "medium", status: "pending" })),
      );
      for (let i = 0; i < steps.length; i++) {
        await plan.start(i);
        await sleep(STEP_MS, ctx.turn.signal);
        await plan.complete(i);
        await ctx.turn.say(`Step ${i + 1} done: ${steps[i]}.\n`);
        if (i === 1) await plan.add("Report back", "low");
      }
      await plan.start(3);
      await plan.complete(3);
      await ctx.turn.say("All 4 steps are complete.");
    },
  },
  {
    name: "think",
    description: "Think out loud (agent_thought_chunk), then answer",
    async run(ctx, args) {
      const topic = args || "the question";
      for (const thought of [
        `Let me think about ${topic}.`,
        " First, what is being asked?",
        " Then, what would settle it?",
      ]) {
        await ctx.turn.think(thought);
      }
      await ctx.turn.say(
        `I thought about ${topic} in three steps; the thoughts arrived as agent_thought_chunk updates.`,
      );
    },
  },
  {
    name: "stream",
    description: "Send exactly N message chunks, all before the response (throughput tests)",
    input: { hint: "N [TEXT]" },
    async run(ctx, args) {
      const match = /^(\d+)(?:\s+([\s\S]+))?$/.exec(args);
      const count = match === null ? NaN : Number(match[1]);
      if (!Number.isSafeInteger(count) || count > MAX_STREAM)
        return ctx.turn.say(`Usage: /stream N [TEXT], with N from 0 to ${MAX_STREAM}.`);
      const label = match![2] ?? "chunk";
      for (let i = 1; i <= count; i++) {
        ctx.turn.throwIfCancelled();
        await ctx.turn.say(`${label} ${i}\n`);
      }
    },
  },
  {
    name: "slow",
    description: "Take MS milliseconds to answer (cancellation tests)",
    input: { hint: "MS" },
    async run(ctx, args) {
      const ms = Number(args);
      if (!/^\d+$/.test(args) || !Number.isSafeInteger(ms)) return ctx.turn.say("Usage: /slow MS");
      await ctx.turn.say(`Working for ${ms} ms…\n`);
      await ctx.turn.session.flush();
      await sleep(ms, ctx.turn.signal);
      await ctx.turn.say(`Done after ${ms} ms.`);
    },
  },
  {
    name: "fail",
    description: "Fail on purpose: a failed tool call, then an error response",
    async run(ctx) {
      const call = ctx.turn.toolCall({ title: "Fail on purpose", kind: "other", status: "in_progress" });
      await call.fail("this tool call fails on purpose (/fail)");
      throw RequestError.internalError({ command: "/fail" }, "the /fail command fails on purpose");
    },
  },
];
