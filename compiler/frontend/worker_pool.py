"""triton-aot worker pool: keeps frontend workers warm across triton-aot-cc runs.

A build runs triton-aot-cc once per kernel and target; each run used to start its own workers,
and each worker paid the imports of Triton and of the kernel's module (torch: seconds) again.
This process outlives the runs: it listens on a Unix socket, and a run that needs a worker
sends it the three pipe ends a worker it spawned itself would have had (its stdin, stdout and
stderr) with SCM_RIGHTS. The pool hands them to an idle worker (starting one if none is idle),
which serves them exactly as a worker spawned by the run does (hello, one response per request,
EOF ends the lease) and then waits for the next lease, its imports kept. Idle workers retire
after --idle seconds; the pool exits when none are left and nothing asks for one.

One pool serves one interpreter, worker script, working directory and environment: the socket's
name is a hash of them (computed by triton-aot-cc, docs/frontend-protocol.md). It never imports
Triton itself: its workers are forked from a zygote process that did (started with the first
worker; the pool is a child subreaper, so they become its children), or, where that cannot be,
started as interpreters. Started by triton-aot-cc, detached (it forks and the parent exits at
once).
"""

import argparse
import fcntl
import json
import os
import select
import selectors
import socket
import subprocess
import sys
import time

import launch

LEASE = b"lease 1 "  # then the run's settings (JSON) and a newline
# A run whose leased worker died asks how it ended (the pool reaped it, not the run): then the
# worker's pid and a newline; answered "exited N", "signaled N" or "unknown".
STATUS = b"status 1 "
# `triton-aot-cc --prepare-workers` (CMake's configure) asks for workers before the build
# needs them: then {"workers": N, "targets": [...], "environment": {...}} and a newline. The
# pool forks N idle workers from a zygote that compiled for each target first (warm_up.py).
PREPARE = b"prepare 1 "
KEY = "TRITON_AOT_TRITON_KEY"  # Triton's key, which a run passes to its workers
ENDED_KEPT = 64  # how many ended workers' statuses are remembered for such questions
# Beyond this many workers, a run takes an idle worker bound to another target (which then
# starts afresh) rather than a new one: each holds its imports (torch: about 1 GB).
# TRITON_AOT_WORKER_POOL_MAX, in the environment of the run that starts the pool, sets it.
def _max_workers():
    try:
        return max(1, int(os.environ.get("TRITON_AOT_WORKER_POOL_MAX", "")))
    except ValueError:
        return 2 * (os.cpu_count() or 1)


MAX_WORKERS = _max_workers()


class ForkedProcess:
    """A worker forked by the zygote, which became our child (we are a child subreaper): what
    the pool uses of subprocess.Popen."""

    def __init__(self, pid):
        self.pid = pid
        self.returncode = None

    def wait(self, timeout=None):
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            try:
                pid, status = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                # Not adopted yet (its zygote's middle process is ending), or not ours at all.
                pid, status = 0, 0
                if deadline is None:
                    deadline = time.monotonic() + 1.0
            if pid:
                self.returncode = os.waitstatus_to_exitcode(status)
                break
            if deadline is not None and time.monotonic() > deadline:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 1.0)
            time.sleep(0.002)
        return self.returncode


class Zygote:
    """One interpreter that imported Triton; the pool's workers are forked from it (docs/
    frontend-protocol.md, "Workers forked from a zygote"). It tells each worker's pid, in the
    order they were asked for, on its socket."""

    def __init__(self, python, script, triton_key, warm_up_targets=None):
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # Triton's key as the first lease's run passes it to its workers: without it the
        # zygote would hash Triton's files (0.3 s) before it forks the first worker.
        environment = dict(os.environ, **({KEY: triton_key} if triton_key else {}))
        extra = ["--warm-up", json.dumps(warm_up_targets)] if warm_up_targets else []
        self.process = _start_frontend(python, script, "--zygote", theirs, environment, extra)
        theirs.close()
        self.control.setblocking(False)
        self.waiting = []  # workers forked, their pids not told yet
        self.said = b""
        self.ready = not warm_up_targets  # a zygote that warms up says "ready" when it has

    def fork(self, worker, control_end):
        _send_fds(self.control, b"pool 1\n", [control_end.fileno()])
        self.waiting.append(worker)

    def heard(self):
        """Reads the pids told; False when the zygote is gone."""
        try:
            data = self.control.recv(4096)
        except BlockingIOError:
            return True
        except OSError:
            data = b""
        self.said += data
        while b"\n" in self.said:
            line, self.said = self.said.split(b"\n", 1)
            if line == b"ready":
                self.ready = True
                continue
            if not self.waiting:
                continue
            worker = self.waiting.pop(0)
            try:
                worker.process = ForkedProcess(int(line.split()[1]))
            except (IndexError, ValueError):
                pass
        return bool(data)

    def stop(self):
        self.control.close()
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _start_frontend(python, script, mode, control, environment=None, extra=()):
    """triton_aot_worker.py in `mode` (--pool-worker, --zygote) on its end of `control`; the
    interpreter as the run names it (it may be a wrapper script), not sys.executable."""
    return subprocess.Popen(
        launch.command(python, script) + [mode, str(control.fileno()), "--python", python,
                                          *extra],
        pass_fds=(control.fileno(),), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL, env=environment)


def _send_fds(control, message, fds):
    """`message` with `fds` on a non-blocking control socket (a few hundred bytes: sent
    blocking, never waits long)."""
    control.setblocking(True)
    try:
        socket.send_fds(control, [message], fds)
    finally:
        control.setblocking(False)


def _become_subreaper():
    """Makes this process adopt its orphaned descendants (prctl PR_SET_CHILD_SUBREAPER): the
    zygote's workers. False where it cannot."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


class Worker:
    def __init__(self, python, script, idle_since, zygote=None):
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        # Read only when the selector says so, and never blocking: drain() may already have
        # read what a select() of serve() reported, and a blocking recv() would then wait for
        # a worker that waits for a request: the whole pool stalled.
        self.control.setblocking(False)
        if zygote is not None:
            self.process = None  # until the zygote says its pid
            zygote.fork(self, theirs)
        else:
            self.process = _start_frontend(python, script, "--pool-worker", theirs)
        theirs.close()
        self.busy = False
        self.idle_since = idle_since
        self.serves = None  # the target it serves only (its imports answered for it), if bound

    def lease(self, message, fds):
        self.busy = True
        _send_fds(self.control, message, fds)

    def retire(self):
        try:
            self.control.setblocking(True)
            self.control.sendall(b"exit\n")
        except OSError:
            pass
        self.control.close()


class Pool:
    def __init__(self, args, listener):
        self.args = args
        self.listener = listener
        self.selector = selectors.DefaultSelector()
        self.selector.register(listener, selectors.EVENT_READ, self.accept)
        self.workers = []
        self.ended = {}  # pid -> Popen.returncode of workers that are gone
        self.last_activity = time.monotonic()
        self.zygote = None  # started with the first worker, where we can adopt its workers
        self.prepared = 0  # workers a preparation asked for, forked once the zygote is ready
        self.zygote_failed = not _become_subreaper()

    def start_zygote(self, message, warm_up_targets=None):
        """The zygote, started now if need be (warming up for `warm_up_targets` first)."""
        if self.zygote is None and not self.zygote_failed:
            try:
                self.zygote = Zygote(self.args.python, self.args.worker,
                                     _environment_of(message).get(KEY), warm_up_targets)
                self.selector.register(self.zygote.control, selectors.EVENT_READ, self.zygote_said)
            except OSError:
                self.zygote_failed = True

    def new_worker(self, lease):
        """A worker forked from the zygote (started now if need be), else an interpreter."""
        self.start_zygote(lease)
        if self.zygote is not None:
            try:
                return Worker(self.args.python, self.args.worker, self.last_activity, self.zygote)
            except OSError:
                self.zygote_gone()
        return Worker(self.args.python, self.args.worker, self.last_activity)

    def learn_forked_pids(self):
        """Reads every pid the zygote has to tell, waiting a second at most: a worker forked
        a moment ago may be the one a run asks about (its kernel ended it on import)."""
        deadline = time.monotonic() + 1.0
        while self.zygote is not None and self.zygote.waiting and time.monotonic() < deadline:
            ready, _, _ = select.select([self.zygote.control], [], [], 0.05)
            if ready:
                self.zygote_said(None)

    def zygote_said(self, _):
        if not self.zygote.heard():
            self.zygote_gone()
        elif self.zygote.ready and self.prepared:
            self.fork_prepared()

    def zygote_gone(self):
        """The zygote ended: the workers it did not fork never say hello (their runs start
        their own), and new workers are interpreters (those a preparation waits for too)."""
        self.selector.unregister(self.zygote.control)
        self.zygote.stop()
        self.zygote, self.zygote_failed = None, True
        if self.prepared:
            self.fork_prepared()

    def accept(self, _):
        try:
            client, _ = self.listener.accept()
        except OSError:
            return
        client.settimeout(5)
        try:
            message, fds, _, _ = socket.recv_fds(client, 1 << 16, 3)
            if message.startswith(STATUS) and not fds:
                self.answer_status(client, message)
        except OSError:
            message, fds = b"", []
        finally:
            client.close()
        if message.startswith(PREPARE) and message.endswith(b"\n") and not fds:
            self.prepare(message)
            return
        if not message.startswith(LEASE) or not message.endswith(b"\n") or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            return
        self.last_activity = time.monotonic()
        self.drain()  # a worker that said idle before this run connected is free
        worker = self.choose(_targets_of(message))
        try:
            if worker is None:
                worker = self.new_worker(message)
                self.workers.append(worker)
                self.selector.register(worker.control, selectors.EVENT_READ, self.heard)
            worker.lease(message, fds)
        except OSError:
            pass  # the run sees EOF before hello and starts a worker of its own
        finally:
            for fd in fds:
                os.close(fd)

    def prepare(self, message):
        """Idle workers until the pool holds as many as the message asks for (at most
        MAX_WORKERS), forked once the zygote is ready: one this starts warms up for the
        message's targets first (a lease meanwhile is served at once, and ends the warm-up)."""
        wanted = _settings_of(message).get("workers")
        if not isinstance(wanted, int) or isinstance(wanted, bool):
            return
        self.last_activity = time.monotonic()
        self.prepared = max(self.prepared, min(wanted, MAX_WORKERS))
        self.start_zygote(message, [t for t in _targets_of(message) if isinstance(t, dict)])
        if self.zygote is None or self.zygote.ready:
            self.fork_prepared()

    def fork_prepared(self):
        forked = 0
        while len(self.workers) < self.prepared:
            try:
                worker = self.new_worker(b"")
            except OSError:
                break
            self.workers.append(worker)
            self.selector.register(worker.control, selectors.EVENT_READ, self.heard)
            forked += 1
        self.prepared = 0
        print(f"worker pool: {forked} worker(s) prepared", file=sys.stderr, flush=True)

    def answer_status(self, client, message):
        """How worker `pid` (one of ours) ended; waits a little for one that is dying."""
        try:
            pid = int(message[len(STATUS):].strip())
        except ValueError:
            pid = -1
        self.learn_forked_pids()
        code = self.ended.get(pid)
        worker = next((w for w in self.workers if w.process and w.process.pid == pid), None)
        if code is None and worker is not None:
            try:
                code = worker.process.wait(timeout=3)
            except subprocess.TimeoutExpired:
                code = None  # alive: not ours to describe as ended
        answer = ("unknown" if code is None else
                  f"signaled {-code}" if code < 0 else f"exited {code}")
        client.sendall(answer.encode() + b"\n")

    def forget(self, worker):
        """A worker that is gone: its status is kept for a run that asks how it ended."""
        self.workers.remove(worker)
        if worker.process is None:
            return  # forked by a zygote that never said its pid
        try:
            worker.process.wait()
        except subprocess.TimeoutExpired:
            return  # not our child after all
        self.ended[worker.process.pid] = worker.process.returncode
        while len(self.ended) > ENDED_KEPT:
            del self.ended[next(iter(self.ended))]

    def choose(self, targets):
        """An idle worker for a run compiling `targets`: one that serves one of them, else one
        that serves any; else None (start one), or, with as many workers as the machine
        should hold, one bound to another target (it starts afresh for this run's)."""
        idle = [w for w in self.workers if not w.busy]
        for fits in (lambda w: w.serves in targets, lambda w: w.serves is None):
            worker = next((w for w in idle if fits(w)), None)
            if worker is not None:
                return worker
        return idle[0] if idle and len(self.workers) >= MAX_WORKERS else None

    def drain(self):
        """Handles what the workers said and was not read yet."""
        for key, _ in self.selector.select(timeout=0):
            if key.fileobj is not self.listener:
                key.data(key.fileobj)

    def heard(self, control):
        worker = next(w for w in self.workers if w.control is control)
        try:
            data = control.recv(4096)
        except BlockingIOError:
            return  # read already (by drain())
        except OSError:
            data = b""
        if not data:  # the worker is gone
            self.selector.unregister(control)
            control.close()
            self.forget(worker)
            return
        said = data.decode("utf-8", errors="replace").strip().splitlines()
        if said and said[-1].startswith("idle"):
            worker.busy = False
            worker.idle_since = self.last_activity = time.monotonic()
            try:
                worker.serves = json.loads(said[-1][4:]) if said[-1][4:].strip() else None
            except ValueError:
                worker.serves = None

    def retire_idle(self, now):
        for worker in [w for w in self.workers if not w.busy and now - w.idle_since >= self.args.idle]:
            self.selector.unregister(worker.control)
            worker.retire()
            self.forget(worker)

    def serve(self):
        while True:
            now = time.monotonic()
            self.retire_idle(now)
            if not self.workers and now - self.last_activity >= self.args.idle:
                if self.zygote is not None:
                    self.zygote_gone()
                return
            for key, _ in self.selector.select(timeout=1.0):
                key.data(key.fileobj)


def _settings_of(message):
    """A lease's run settings, or a preparation's (its JSON), or {}."""
    header = PREPARE if message.startswith(PREPARE) else LEASE
    try:
        settings = json.loads(message[len(header):])
    except ValueError:
        return {}
    return settings if isinstance(settings, dict) else {}


def _environment_of(lease):
    """What a lease's run sets in its workers' environment (its settings' "environment")."""
    environment = _settings_of(lease).get("environment")
    return environment if isinstance(environment, dict) else {}


def _targets_of(lease):
    """The targets a lease's run compiles (its settings' "targets"), or []."""
    targets = _settings_of(lease).get("targets")
    return targets if isinstance(targets, list) else []


def daemonize(log_path):
    if os.fork() > 0:
        os._exit(0)  # the run waits for this parent only
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    log = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.dup2(log, 2)
    os.closerange(3, os.sysconf("SC_OPEN_MAX") if hasattr(os, "sysconf") else 1024)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--socket", required=True)
    parser.add_argument("--worker", required=True)
    parser.add_argument("--python", required=True, help="the interpreter as the run names it")
    parser.add_argument("--idle", type=float, default=120.0)
    args = parser.parse_args()
    daemonize(args.socket + ".log")
    # One pool per socket: the lock is held for the pool's life.
    lock = open(args.socket + ".lock", "w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0
    if os.path.exists(args.socket):
        os.unlink(args.socket)  # left by a pool that died: we hold the lock, so it is not live
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o077)
    directory = os.open(os.path.dirname(args.socket), os.O_RDONLY | os.O_DIRECTORY)
    try:
        # A path longer than sockaddr_un holds is bound through its directory's fd (so do runs).
        listener.bind(args.socket if len(args.socket) < 108
                      else f"/proc/self/fd/{directory}/{os.path.basename(args.socket)}")
    finally:
        os.close(directory)
        os.umask(old)
    listener.listen(64)
    try:
        Pool(args, listener).serve()
    finally:
        os.unlink(args.socket)
        listener.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
