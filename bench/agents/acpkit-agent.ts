/** Child main: the bench agent over stdin/stdout (or, with --remote, behind its remote server) with acpkit. */
import { acpkitImpl } from "../impls/acpkit.js";
import { runImplChild } from "./child.js";

runImplChild(acpkitImpl);
