/**
 * `node --import <this file> <official example program>`: runs a program shipped with the official SDK 1.9.0
 * (`sdk-1.9/dist/examples/*.js`) unchanged, with its SDK import pointed at acpkit or left on the official SDK
 * (ACP_PROGRAM_SDK=acpkit|official|official-2.4.0). See ./hooks.ts.
 */
import { register } from "node:module";

register("./hooks.js", import.meta.url);

const sdk =
  process.env.ACP_PROGRAM_SDK === "acpkit"
    ? "acpkit"
    : process.env.ACP_PROGRAM_SDK === "official-2.4.0"
      ? "the official SDK 2.4.0"
      : "the official SDK 1.9.0";
process.stderr.write(`[official program] ${process.argv[1]?.split("/").slice(-2).join("/")} on ${sdk}\n`);
