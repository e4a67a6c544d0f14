/** Child main: the bench agent over stdin/stdout with the raw baseline. */
import { rawImpl } from "../impls/raw.js";
import { runChild } from "./child.js";

runChild((observer) => rawImpl.serveStdio(observer));
