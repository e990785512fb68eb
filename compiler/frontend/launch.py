"""How a frontend script (a worker, the pool) starts another: `python -B -c <launcher> script
args...`, the launcher running the script as `__main__` from the bytecode beside it (runpy). A
script named on the command line is compiled from source each time it starts; run as a module,
its bytecode (written at build and install time, hash-checked) is used. triton-aot-cc spells the
same command (compiler/worker_lease.cpp, frontendCommand)."""

LAUNCHER = ("import os, runpy, sys; script = sys.argv[1]; sys.path[0] = os.path.dirname(script); "
            "del sys.argv[0]; runpy.run_module(os.path.splitext(os.path.basename(script))[0], "
            "run_name='__main__', alter_sys=True)")


def command(python, script):
    """The argv that starts `script` under `python` (its arguments follow)."""
    return [python, "-B", "-c", LAUNCHER, script]
