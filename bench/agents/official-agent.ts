/** Child main: the bench agent over stdin/stdout (or, with --remote, behind its remote server) with official. */
import { officialImpl } from "../impls/official.js";
import { runImplChild } from "./child.js";

runImplChild(officialImpl);
