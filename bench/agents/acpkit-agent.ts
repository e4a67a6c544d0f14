/** Child main: the bench agent over stdin/stdout with acpkit. */
import { acpkitImpl } from "../impls/acpkit.js";
import { runChild } from "./child.js";

runChild((observer) => acpkitImpl.serveStdio(observer));
