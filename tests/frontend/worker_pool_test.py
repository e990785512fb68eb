"""compiler/frontend/worker_pool.py without Triton: the pool's event loop when one select()
reports both a run asking for a lease and a worker saying it is idle; and how a run learns how
its leased worker ended (the pool, its parent, reaped it).

accept() reads what workers said before it picks one (drain()), so by the time serve() gets to
the worker's entry of the same select() there is nothing left to read. That recv() must not
block: the worker is waiting for a request, and the pool would stall every build that uses it
(seen building Liger-Kernel's 182 entry points: two compiles waited for ever).
"""
import os
import signal
import socket
import subprocess
import sys
import types
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "compiler", "frontend"))
import worker_pool  # noqa: E402


class FakeProcess:
    """subprocess.Popen for Worker and Zygote: keeps the process's end of its control socket."""

    def __init__(self, args, pass_fds=(), **_):
        self.args = args
        self.theirs = socket.socket(fileno=os.dup(pass_fds[0]))

    def wait(self, timeout=None):
        return 0


def fake_worker(busy):
    """A Worker made by worker_pool's own code, with no process behind it."""
    popen = worker_pool.subprocess.Popen
    worker_pool.subprocess.Popen = FakeProcess
    try:
        worker = worker_pool.Worker(sys.executable, "worker.py", 0.0)
    finally:
        worker_pool.subprocess.Popen = popen
    worker.busy = busy
    return worker, worker.process.theirs


class ServeOnceTest(unittest.TestCase):
    def setUp(self):
        signal.alarm(10)   # a blocking recv() would hang the test: fail it instead

    def tearDown(self):
        signal.alarm(0)

    def test_an_idle_message_drained_by_accept_is_not_read_again(self):
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        path = f"/tmp/tta-pool-test-{os.getpid()}.sock"
        if os.path.exists(path):
            os.unlink(path)
        listener.bind(path)
        listener.listen()
        self.addCleanup(os.unlink, path)
        pool = worker_pool.Pool(types.SimpleNamespace(python=sys.executable, worker="", idle=60),
                                listener)
        worker, theirs = fake_worker(busy=True)
        pool.workers.append(worker)
        pool.selector.register(worker.control, worker_pool.selectors.EVENT_READ, pool.heard)

        # The worker says it is idle, and a run asks for a lease: both are ready at once.
        theirs.sendall(b"idle\n")
        run = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        run.connect(path)
        pipes = [os.pipe() for _ in range(3)]
        socket.send_fds(run, [worker_pool.LEASE + b"{}\n"], [r for r, _ in pipes])
        ready = pool.selector.select(timeout=1.0)
        self.assertEqual(len(ready), 2)
        for key, _ in sorted(ready, key=lambda k: k[0].fileobj is not listener):
            key.data(key.fileobj)   # accept() first: it drains the idle message

        # The idle worker got the lease (its three fds), and nothing blocked.
        message, fds, _, _ = socket.recv_fds(theirs, 1 << 16, 3)
        self.assertTrue(message.startswith(worker_pool.LEASE))
        self.assertEqual(len(fds), 3)
        self.assertTrue(worker.busy)
        for fd in fds + [fd for pair in pipes for fd in pair]:
            os.close(fd)
        run.close()
        theirs.close()


class StatusTest(unittest.TestCase):
    """A run whose leased worker died asks the pool how (compiler/worker_lease.cpp,
    leasedWorkerEnd): so a kernel that called os._exit() or was killed by the out-of-memory
    killer is named as such, not as a crash of Triton."""

    def setUp(self):
        signal.alarm(20)
        self.listener, self.other_end = socket.socketpair()
        self.pool = worker_pool.Pool(
            types.SimpleNamespace(python=sys.executable, worker="", idle=60), self.listener)

    def tearDown(self):
        signal.alarm(0)
        self.listener.close()
        self.other_end.close()

    def ask(self, pid):
        run, pool_end = socket.socketpair()
        with run, pool_end:
            self.pool.answer_status(pool_end, worker_pool.STATUS + str(pid).encode() + b"\n")
            return run.recv(64).decode()

    def test_each_end_is_answered_before_and_after_the_pool_forgets_the_worker(self):
        for code, expected in (("os._exit(3)", "exited 3\n"),
                               ("os.kill(os.getpid(), signal.SIGKILL)", "signaled 9\n")):
            process = subprocess.Popen([sys.executable, "-c", f"import os, signal; {code}"])
            worker = types.SimpleNamespace(process=process)
            self.pool.workers.append(worker)
            self.assertEqual(self.ask(process.pid), expected)  # the pool waits for it
            self.pool.forget(worker)
            self.assertEqual(self.ask(process.pid), expected)  # remembered once gone

    def test_a_process_that_is_not_one_of_its_workers_is_unknown(self):
        self.assertEqual(self.ask(os.getpid()), "unknown\n")
        self.assertEqual(self.ask(-1), "unknown\n")


class PrepareTest(unittest.TestCase):
    """triton-aot-cc --prepare-workers (CMake's configure): the pool starts a zygote that warms
    up for the targets first, and forks the workers asked for once it says it is ready, so they
    inherit the warm-up; a zygote already running (a run started it) forks them at once."""

    def setUp(self):
        signal.alarm(20)
        self.listener, self.other_end = socket.socketpair()
        self.pool = worker_pool.Pool(
            types.SimpleNamespace(python=sys.executable, worker="w.py", idle=60), self.listener)
        self.pool.zygote_failed = False
        popen = worker_pool.subprocess.Popen
        worker_pool.subprocess.Popen = FakeProcess
        self.addCleanup(setattr, worker_pool.subprocess, "Popen", popen)

    def tearDown(self):
        signal.alarm(0)
        self.listener.close()
        self.other_end.close()

    def forks_asked(self, zygote_end):
        """The fork requests the zygote got so far."""
        asked = []
        zygote_end.setblocking(False)
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(zygote_end, 64, 1)
            except BlockingIOError:
                return asked
            asked.append(message)
            for fd in fds:
                os.close(fd)

    def test_workers_are_forked_once_the_zygote_has_warmed_up(self):
        target = {"backend": "cuda", "arch": 80, "warp_size": 32}
        self.pool.prepare(worker_pool.PREPARE + b'{"workers": 2, "targets": [' +
                          worker_pool.json.dumps(target).encode() + b']}\n')
        zygote = self.pool.zygote
        self.assertIn("--warm-up", zygote.process.args)
        self.assertEqual(worker_pool.json.loads(zygote.process.args[-1]), [target])
        zygote_end = zygote.process.theirs
        self.assertEqual(self.forks_asked(zygote_end), [])
        self.assertEqual(self.pool.workers, [])
        zygote_end.sendall(b"ready\n")
        self.pool.zygote_said(None)
        self.assertEqual(self.forks_asked(zygote_end), [b"pool 1\n", b"pool 1\n"])
        self.assertEqual(len(self.pool.workers), 2)
        self.assertFalse(any(worker.busy for worker in self.pool.workers))
        # Told pids in order, as for a lease's workers.
        zygote_end.sendall(b"forked 101\nforked 102\n")
        self.pool.zygote_said(None)
        self.assertEqual([w.process.pid for w in self.pool.workers], [101, 102])

    def test_a_zygote_that_ends_before_it_is_ready_leaves_them_to_interpreters(self):
        self.pool.prepare(worker_pool.PREPARE + b'{"workers": 2, "targets": [{"backend": "cuda"}]}\n')
        zygote_end = self.pool.zygote.process.theirs
        zygote_end.close()
        self.pool.zygote_said(None)
        self.assertIsNone(self.pool.zygote)
        self.assertEqual(len(self.pool.workers), 2)
        self.assertTrue(all("--pool-worker" in w.process.args for w in self.pool.workers))

    def test_a_running_zygote_forks_them_at_once_and_never_more_than_asked(self):
        self.pool.new_worker(worker_pool.LEASE + b"{}\n")   # a run's lease started the zygote
        zygote_end = self.pool.zygote.process.theirs
        self.assertNotIn("--warm-up", self.pool.zygote.process.args)
        self.pool.workers.append(object())                    # that lease's worker
        self.forks_asked(zygote_end)
        self.pool.prepare(worker_pool.PREPARE + b'{"workers": 3, "targets": []}\n')
        self.assertEqual(len(self.forks_asked(zygote_end)), 2)
        self.pool.prepare(worker_pool.PREPARE + b'{"workers": 3, "targets": []}\n')
        self.assertEqual(self.forks_asked(zygote_end), [])

    def test_a_malformed_preparation_asks_for_nothing(self):
        for message in (b'{"workers": "3"}\n', b'{"workers": true}\n', b'[3]\n', b'{\n'):
            with self.subTest(message=message):
                self.pool.prepare(worker_pool.PREPARE + message)
                self.assertIsNone(self.pool.zygote)
                self.assertEqual(self.pool.workers, [])


class ZygoteWarmUpTest(unittest.TestCase):
    """A zygote asked to warm up says `ready` when it is done, even where Triton cannot be
    imported (the pool would otherwise wait for ever to fork the prepared workers; they then say
    in their hello why nothing can compile)."""

    def test_a_zygote_without_triton_still_says_ready(self):
        signal.alarm(60)
        self.addCleanup(signal.alarm, 0)
        ours, theirs = socket.socketpair()
        script = os.path.join(os.path.dirname(worker_pool.__file__), "triton_aot_worker.py")
        # -S: no site directories, so no Triton.
        zygote = subprocess.Popen(
            [sys.executable, "-S", script, "--zygote", str(theirs.fileno()), "--warm-up",
             '[{"backend": "cuda", "arch": 80, "warp_size": 32}]'],
            pass_fds=(theirs.fileno(),), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        theirs.close()
        with ours:
            self.assertEqual(ours.recv(64), b"ready\n")
        self.assertEqual(zygote.wait(timeout=30), 0)   # EOF on its socket ends it


if __name__ == "__main__":
    unittest.main()
