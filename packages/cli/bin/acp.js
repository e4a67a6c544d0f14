#!/usr/bin/env node
// The `acp` command. The programs live in acpkit (its `acpkit/cli` entry: the command itself, not an API); this
// package brings what they need beyond the library: `ws` (remote agents, `acp serve`, `acp connect`) and the official
// MCP SDK (MCP servers in the reference agent), which acpkit only declares as optional peers.
import "acpkit/cli";
