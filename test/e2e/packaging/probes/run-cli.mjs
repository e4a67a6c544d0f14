// The `acp` command from the installed library, as @acpkit/cli's bin runs it (`import "@acpkit/sdk/cli"`).
import "@acpkit/sdk/cli";
