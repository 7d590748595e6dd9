import sys
from multiprocessing.connection import Connection

from worker.child import context


def report_imports(conn: Connection) -> None:
    conn.send("torch._dynamo" in sys.modules)


def test_a_runs_process_starts_with_what_torch_func_imports_on_its_first_call() -> None:
    # `torch.func.grad` imports torch._dynamo on first use: without it in the fork
    # server, the first round of Example 1's scalar model took 0.97 s instead of 3 ms
    ctx = context()
    parent, kid = ctx.Pipe()
    process = ctx.Process(target=report_imports, args=(kid,))
    process.start()
    try:
        assert parent.recv() is True
    finally:
        process.join(timeout=60)
    assert process.exitcode == 0
