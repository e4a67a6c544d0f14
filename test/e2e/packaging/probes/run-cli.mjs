// The `acp` command from the installed library, as @acpkit/cli's bin runs it (`import "acpkit/cli"`).
import "acpkit/cli";
