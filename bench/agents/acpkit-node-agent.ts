/** Child main: the bench agent over stdin/stdout with acpkit's Node transport (`stdioStream()`). */
import { acpkitNodeImpl } from "../impls/acpkit-node.js";
import { runChild } from "./child.js";

runChild((observer) => acpkitNodeImpl.serveStdio(observer));
