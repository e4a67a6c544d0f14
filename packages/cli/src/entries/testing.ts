/**
 * `@acpkit/cli/testing`: for testing terminal programs like `acp chat`: a virtual screen that interprets what a
 * program wrote to its terminal (cursor moves, erasures, colours dropped) into the lines a user would see.
 */
export { VirtualScreen } from "../apps/chat/testing/virtual-screen.js";
