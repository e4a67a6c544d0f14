#!/usr/bin/env python3
"""Runs a command in a real pseudo-terminal and bridges it to this process's stdio.

    python3 pty_driver.py COLUMNS ROWS PROGRAM [ARGS...]

The program gets a pty as its controlling terminal (stdin, stdout and stderr), sized COLUMNS x ROWS. Bytes read on
our stdin are typed into the terminal (so a test can send keys, "\\x03" for Ctrl-C included); everything the
program writes to the terminal is copied to our stdout as it comes. When the program exits, so does this driver,
with the program's exit code (128 + N for a signal). Used by test/e2e/chat/*.test.ts: there is no node-pty here.
"""
import fcntl
import os
import pty
import select
import struct
import sys
import termios


def main() -> int:
    columns, rows, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    pid, master = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        os.execvp(argv[0], argv)
    stdin_open = True
    while True:
        watched = [master] + ([0] if stdin_open else [])
        readable, _, _ = select.select(watched, [], [], 0.05)
        if master in readable:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            if not data:
                break
            os.write(1, data)
        if stdin_open and 0 in readable:
            data = os.read(0, 65536)
            if not data:
                stdin_open = False
            else:
                os.write(master, data)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
