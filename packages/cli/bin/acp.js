#!/usr/bin/env node
// The `acp` command: its programs are this package's (dist/src), on the library @acpkit/sdk.
import "../dist/src/cli/main.js";
