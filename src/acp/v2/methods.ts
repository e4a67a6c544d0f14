/**
 * The method-name constants of protocol v2 (draft), derived from its method table like v1's `methods`:
 * `v2Methods.agent.auth.login === "auth/login"`, `v2Methods.agent.toolCall.cancel === "tool_call/cancel"`.
 */
import { buildMethods } from "../methods.js";
import { v2Flavor, v2UnstableFlavor } from "../v2-flavors.js";
import type { V2Methods, V2UnstableMethods } from "./app-types.js";

/** v2's `methods` (stable part). */
export const v2Methods = buildMethods(v2Flavor) as unknown as V2Methods;

/** v2's `methods` with the unstable additions. */
export const v2UnstableMethods = buildMethods(v2UnstableFlavor) as unknown as V2UnstableMethods;
