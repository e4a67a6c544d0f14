/** Child main: the bench agent over stdin/stdout with official. */
import { officialImpl } from "../impls/official.js";
import { runChild } from "./child.js";

runChild((observer) => officialImpl.serveStdio(observer));
