"""A launch's CTAs spread over Dask workers, the trace put back together in CTA order, equal to a serial run's.

The tracer runs CTAs in batches (``tracer.execute``); here each batch is a task, executed by ``execute`` on a worker
for the same CTAs, so its rows are the serial run's. What a serial run carries from batch to batch is global memory:
a worker runs its batch on the memory as it was before any CTA ran, and records which bytes its CTAs read and wrote
(``TrackedMemory``). The results are taken in CTA order against the memory the serial run would have had at that
point (the committed memory): a batch that read no byte which earlier batches had changed ran exactly as it would
have serially, and its writes are committed; any other batch, and one that failed on its worker, is run again here on
the committed memory. So the output is the serial run's byte for byte, whatever a kernel does with global memory
(CTAs that read each other's results cost reruns, not a wrong trace), and an error is the serial run's, naming the
batch's CTAs.

A local cluster (``--jobs``) starts, in the background, only once the CTAs left look like more than ``START_AFTER``
seconds of work: until then, and while it starts, batches run here. ``--scheduler`` connects to a running cluster
at once. At most ``AHEAD`` batches per worker are in flight, so memory stays bounded. What is scattered to the workers
is not hashed (``hash=False``): Dask's hash of a sweep's 10.4 MB trace took 0.24 s of this process's CPU, and two
scatters of equal data under one key let the second lose it when the first is released.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import attrs
import numpy as np

from .. import jit
from ..errors import SimsmemError
from ..kernel.launch import Launch
from ..kernel.memory import Buffer, GlobalMemory
from ..kernel.program import Program
from ..kernel.streams import WarpStreams
from ..kernel.tracer import Execution, StreamSink, ctas_per_batch, execute, trace_stream
from ..traces.patterns import Patterns
from ..traces.records import InstructionBatch
from ..traces.stream import TraceStream, rechunk

#: Start a local cluster once the CTAs left look like more than this many seconds of work here.
START_AFTER = 2.0
#: Batches in flight per worker.
AHEAD = 2
#: Dask's settings for the workers of a local cluster: no statistical profiler (it samples every thread's stack every
#: 10 ms; a worker tracing bench_scale's SGEMM took about 7% more CPU with it), glibc's own heap trimming, not the
#: 64 KiB threshold Dask's nanny sets (it returns freed memory to the system at once: an SGEMM batch took 0.45 to 0.48 s
#: of CPU with it, 0.40 to 0.43 s without; docs/performance.md), and the event loops' tick (its lag check) once a second
#: and the system monitor (the dashboard's CPU and memory plots) every 5 s, not every 20 and 500 ms: a 2-worker cluster's
#: processes took 0.68 to 0.73 s of CPU in 10 s idle so, 0.20 s so not.
WORKER_CONFIG = {"distributed.worker.profile.enabled": False, "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None,
                 "distributed.admin.tick.interval": "1s", "distributed.admin.system-monitor.interval": "5s"}


@attrs.define(eq=False)
class TrackedMemory(GlobalMemory):
    """Global memory that notes where it is read and written (``read`` and ``written`` give them, per buffer)."""

    reads: list[tuple[int, np.ndarray, int]] = attrs.field(factory=list)  # (buffer, byte offsets, access size)
    writes: list[tuple[int, np.ndarray, int]] = attrs.field(factory=list)

    @classmethod
    def copy_of(cls, memory: GlobalMemory) -> TrackedMemory:
        return cls([Buffer(b.name, b.data.copy(), b.writable) for b in memory.buffers])

    def load(self, addr: np.ndarray, size: int) -> np.ndarray:
        out = super().load(addr, size)
        self._note(self.reads, addr, size)
        return out

    def store(self, addr: np.ndarray, data: np.ndarray) -> None:
        super().store(addr, data)
        self._note(self.writes, addr, data.shape[1])

    def _note(self, log: list, addr: np.ndarray, size: int) -> None:
        one = self._one_buffer(addr, size)
        if one is not None:
            log.append((one[0], one[1], size))
            return
        index, offset = self.locate(addr, size)
        log.extend((int(i), offset[index == i], size) for i in np.unique(index))

    def written(self) -> dict[int, np.ndarray]:
        """The bytes of each buffer written, as (n, 2) [start, stop) ranges."""
        return _ranges(self.writes)

    def read(self) -> dict[int, np.ndarray]:
        """The bytes of each buffer read, as (n, 2) [start, stop) ranges (an SGEMM batch's 65,536 loads of A, 1 MB sent
        back as they were, are one range, merged in about 1 ms)."""
        return _ranges(self.reads)


def _ranges(log: list) -> dict[int, np.ndarray]:
    return {i: merged(np.concatenate(o), np.concatenate(n)) for i, (o, n) in _grouped(log).items()}


def _grouped(log: list) -> dict[int, tuple[list, list]]:
    out: dict[int, tuple[list, list]] = {}
    for i, offset, size in log:
        o, n = out.setdefault(i, ([], []))
        o.append(offset)
        n.append(np.full(len(offset), size))
    return out


def merged(offsets: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """(n, 2) [start, stop) ranges covering the accesses at ``offsets`` of ``sizes`` bytes, overlapping and adjacent ones joined."""
    order = np.argsort(offsets, kind="stable")
    start = offsets[order]
    reach = np.maximum.accumulate(start + sizes[order])
    new = np.concatenate(([True], start[1:] > reach[:-1]))
    last = np.concatenate((np.flatnonzero(new)[1:] - 1, [len(start) - 1]))
    return np.stack([start[new], reach[last]], 1)


def indices(ranges: np.ndarray) -> np.ndarray:
    """Every byte index of (n, 2) [start, stop) ranges."""
    lengths = ranges[:, 1] - ranges[:, 0]
    return np.repeat(ranges[:, 0] - (np.cumsum(lengths) - lengths), lengths) + np.arange(lengths.sum())


@attrs.frozen
class Same:
    """A column of one value throughout, sent as that value (``view``: a read-only broadcast, as ``no_sources`` makes)."""

    value: object
    shape: tuple[int, ...]
    dtype: np.dtype
    view: bool

    def array(self) -> np.ndarray:
        one = np.array(self.value, dtype=self.dtype)
        return np.broadcast_to(one, self.shape) if self.view else np.full(self.shape, one, dtype=self.dtype)


def pack(batch: InstructionBatch) -> dict:
    """A batch's columns for the way back from a worker, those of one value as ``Same`` (most are: a kernel's trace
    leaves most fields at their left-out values), a per-lane one as its lane patterns (``Patterns.quick``: an SGEMM
    batch's ``addrs``, 9.7 MB, as 0.6 MB made in 6 ms; receiving costs Dask's client about 2 ms of CPU a MB)."""
    out = {}
    for name in attrs.fields_dict(InstructionBatch):
        v = getattr(batch, name)
        view = v.size > 0 and not any(v.strides)
        out[name] = (Same(v.flat[0].item(), v.shape, v.dtype, view) if view or (v.size and (v == v.flat[0]).all())
                     else Patterns.quick(v) if v.ndim == 2 else v)
    return out


def unpack(columns: dict) -> InstructionBatch:
    return InstructionBatch(**{k: v.array() if isinstance(v, Same) else v.column() if isinstance(v, Patterns) else v for k, v in columns.items()})


@attrs.frozen(eq=False)
class Part:
    """What one batch of CTAs made: its rows, counts and kept warp streams (rows numbered from the batch's first), and,
    from a worker, what it read and wrote (with the final bytes) of each buffer; ``failed``: it raised."""

    batches: list  # InstructionBatch, or its ``pack`` on the way back from a worker
    executed: int
    ctas: int
    load: float
    kept: list[WarpStreams]
    reads: dict[int, np.ndarray] = attrs.field(factory=dict)  # buffer -> (n, 2) [start, stop) ranges read
    writes: dict[int, tuple[np.ndarray, np.ndarray]] = attrs.field(factory=dict)  # buffer -> ([start, stop) ranges, their bytes)
    failed: bool = False
    counted: dict[str, int] = attrs.field(factory=dict)  # ``Execution.counted``
    l1_words: dict[int, list[int]] = attrs.field(factory=dict)  # ``Execution.l1_words``
    l1_unknown: str = ""  # ``Execution.l1_unknown``
    misc_unknown: str = ""  # ``Execution.misc_unknown``


def _execute(program: Program, launch: Launch, ctas: list[int], limit: int | None, keep: frozenset[int], sms: int) -> Part:
    execution = Execution()
    sink = StreamSink(sms, keep) if keep else None
    batches = list(execute(program, launch, ctas, limit, execution, sink))
    return Part(batches, execution.executed, execution.ctas, execution.load, sink.kept if sink else [], counted=execution.counted,
                l1_words=execution.l1_words, l1_unknown=execution.l1_unknown, misc_unknown=execution.misc_unknown)


def run_on_worker(program: Program, launch: Launch, ctas: list[int], limit: int | None, keep: frozenset[int], sms: int) -> Part:
    """A batch on the memory before any CTA ran (``launch``'s, copied): its part, with what it read and wrote."""
    memory = TrackedMemory.copy_of(launch.memory)
    try:
        part = _execute(program, attrs.evolve(launch, memory=memory), ctas, limit, keep, sms)
    except Exception:  # run again on the committed memory, where the error (if it stays) is the serial run's
        return Part([], 0, 0, 0.0, [], failed=True)
    writes = {i: (w, memory.buffers[i].data[indices(w)]) for i, w in memory.written().items()}
    return attrs.evolve(part, batches=[pack(b) for b in part.batches], reads=memory.read(), writes=writes)


class Workers:
    """A Dask client: to the cluster at ``scheduler``, given, or to a local cluster of ``jobs`` worker processes started
    in the background (``start``); ``client`` is None until it is ready."""

    def __init__(self, jobs: int, scheduler: str | None = None, client=None) -> None:
        self.jobs, self.scheduler, self.client = jobs, scheduler, client
        self.owned = client is None
        self.cluster = None
        self.failed: str | None = None
        self._thread: threading.Thread | None = None
        if scheduler and client is None:
            self.client = connect(scheduler)
            print(f"simsmem: Dask cluster at {scheduler}, {len(self.client.scheduler_info()['workers'])} workers"
                  + (f"; dashboard {self.client.dashboard_link}" if self.client.dashboard_link else ""), file=sys.stderr)

    def start(self) -> None:
        """Start the local cluster in the background (once; ``failed`` says why it did not)."""
        if self._thread is None and self.client is None:
            self._thread = threading.Thread(target=self._local, name="simsmem-dask", daemon=True)
            self._thread.start()

    def _local(self) -> None:
        try:
            import dask
            from distributed import Client, LocalCluster

            with dask.config.set(WORKER_CONFIG):
                self.cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                                            silence_logs=logging.ERROR)
            client = Client(self.cluster)
            client.run(warm)
            self.client = client
        except Exception as exc:  # the run goes on here
            self.failed = f"{type(exc).__name__}: {exc}"

    def close(self) -> None:
        if self._thread is not None:
            self._thread.join()
        if self.owned:
            with contextlib.suppress(Exception):
                if self.client is not None:
                    self.client.close()
                if self.cluster is not None:
                    self.cluster.close()


def warm() -> None:
    """What a worker's first task would load otherwise (run on each worker of a local cluster as it starts): the tracer,
    the counting, numba, the compiled functions' dispatchers and numba's registries (``jit.ready``)."""
    for module in ("simsmem.kernel.tracer", "simsmem.results.analysis", "simsmem.sm"):
        importlib.import_module(module)
    jit.ready()


def connect(scheduler: str):
    """A client of the Dask scheduler at ``scheduler`` (``tcp://HOST:PORT``), or one line saying why not."""
    try:
        from distributed import Client

        return Client(scheduler, timeout=10)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SimsmemError("--scheduler", f"cannot reach a Dask scheduler at {scheduler} ({exc})") from None


def jobs_default(jobs: int | None) -> int:
    """``--jobs``: as given, else the cores this process may use."""
    return jobs if jobs is not None else len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def runner(jobs: int | None = None, scheduler: str | None = None, client=None):
    """A ``trace_stream`` that spreads the CTAs over ``jobs`` local workers, the cluster at ``scheduler``, or ``client``'s."""

    def run(program: Program, launch: Launch, ctas: list[int], header: dict, limit: int | None = None, advance=lambda n: None,
            sink: StreamSink | None = None, execution: Execution | None = None) -> TraceStream:
        return parallel_stream(program, launch, ctas, header, limit, advance, sink, execution, jobs=jobs, scheduler=scheduler,
                               client=client)
    return run


def parallel_stream(program: Program, launch: Launch, ctas: list[int], header: dict, limit: int | None = None, advance=lambda n: None,
                    sink: StreamSink | None = None, execution: Execution | None = None, *, jobs: int | None = None,
                    scheduler: str | None = None, client=None) -> TraceStream:
    """``tracer.trace_stream``'s stream, its batches run on workers (serially where there is only one batch or one job)."""
    jobs = jobs_default(jobs)
    per = ctas_per_batch(launch)
    tasks = [ctas[s : s + per] for s in range(0, len(ctas), per)]
    if len(tasks) < 2 or (jobs < 2 and scheduler is None and client is None):
        return trace_stream(program, launch, ctas, header, limit, advance, sink, execution)
    execution = execution if execution is not None else Execution()

    def parts() -> Iterator[tuple[InstructionBatch, int]]:
        rows = 0
        for first, part in _ordered(program, launch, tasks, limit, sink, jobs, scheduler, client):
            execution.executed += part.executed
            execution.count(part.counted, part.l1_words, part.l1_unknown, part.misc_unknown)
            execution.ctas += part.ctas
            execution.load = max(execution.load, part.load)
            if sink is not None:
                sink.kept += [attrs.evolve(s, rows=tuple(np.where(r >= 0, r + rows, -1) for r in s.rows)) for s in part.kept]
            advance(part.ctas)
            for batch in part.batches:
                rows += len(batch)
                yield batch, execution.ctas
        execution.finish(header)

    return TraceStream(program.where, program.entry, "sm_90", 1, len(ctas), rechunk(parts()), kernel=header)


def _ordered(program: Program, launch: Launch, tasks: list[list[int]], limit: int | None, sink: StreamSink | None, jobs: int,
             scheduler: str | None, client) -> Iterator[tuple[int, Part]]:
    """Each task's part, in order: run here until workers are ready, then on them, checked against the committed memory
    (``launch.memory``, which holds the serial run's memory after the last task once all are taken)."""
    initial = GlobalMemory([Buffer(b.name, b.data.copy(), b.writable) for b in launch.memory.buffers])
    committed = launch.memory
    sms = sink.sms if sink is not None else 1
    keeps = [frozenset(c for c in t if sink is not None and c in sink.ctas) for t in tasks]
    workers = Workers(jobs, scheduler, client)
    pending: deque = deque()
    shared, size, noted = None, 0, False
    changed: dict[int, bool] = {}
    began, k = time.perf_counter(), 0
    try:
        while k < len(tasks) or pending:
            if workers.client is not None and shared is None:
                shared = workers.client.scatter([program, attrs.evolve(launch, memory=initial)], broadcast=True, hash=False)
                size = max(1, len(workers.client.scheduler_info()["workers"]))
            if shared is not None:
                while k < len(tasks) and len(pending) < AHEAD * size:
                    pending.append((k, workers.client.submit(run_on_worker, *shared, tasks[k], limit, keeps[k], sms, pure=False)))
                    k += 1
                j, future = pending.popleft()
                part = future.result()
                if part.failed or _stale(part, initial, committed, changed):
                    part = _here(program, launch, tasks[j], limit, keeps[j], sms)
                    changed.clear()
                else:
                    for i, (where, data) in part.writes.items():
                        at = indices(where)
                        if changed.get(i) is False:  # still as it was, unless these bytes are new
                            changed[i] = bool((data != initial.buffers[i].data[at]).any())
                        committed.buffers[i].data[at] = data
                    part = attrs.evolve(part, batches=[unpack(b) for b in part.batches])
                yield tasks[j][0], part
                continue
            yield tasks[k][0], _here(program, launch, tasks[k], limit, keeps[k], sms)
            changed.clear()
            k += 1
            if (time.perf_counter() - began) / k * (len(tasks) - k) > START_AFTER:
                workers.start()
            if workers.failed and not noted:
                print(f"simsmem: note: no Dask workers ({workers.failed}); the CTAs run here", file=sys.stderr)
                noted = True
    finally:
        for _, future in pending:
            future.cancel()
        workers.close()


def _stale(part: Part, initial: GlobalMemory, committed: GlobalMemory, changed: dict[int, bool]) -> bool:
    """Whether a worker's part read a byte that the tasks before it changed (``changed``: whether a buffer may differ
    from its initial bytes, filled in as asked and kept up as parts are committed; runs here forget it)."""
    for i, ranges in part.reads.items():
        if i not in changed:
            changed[i] = not np.array_equal(committed.buffers[i].data, initial.buffers[i].data)
        if changed[i]:
            at = indices(ranges)
            if (committed.buffers[i].data[at] != initial.buffers[i].data[at]).any():
                return True
    return False


def _here(program: Program, launch: Launch, ctas: list[int], limit: int | None, keep: frozenset[int], sms: int) -> Part:
    """A task run in this process on the committed memory; its error names its CTAs."""
    try:
        return _execute(program, launch, ctas, limit, keep, sms)
    except SimsmemError as exc:
        g = launch.geometry
        named = f"CTA {','.join(map(str, g.cta_at(ctas[0])))}" + (f" to {','.join(map(str, g.cta_at(ctas[-1])))}" if len(ctas) > 1 else "")
        raise SimsmemError(f"{exc.where} ({named})", exc.what) from None


def spread(work, items: list, shared: list, pick, jobs: int | None = None, scheduler: str | None = None, client=None
           ) -> Iterator[tuple[int, object]]:
    """``work(shared[pick(item)], item)`` for every item, as ``(index, result)`` in the order they finish: here until the
    workers are ready (a local cluster starts as ``parallel_stream``'s does), then on them. Each of ``shared`` (a sweep's
    traces) is sent from here once, to one worker; a worker that runs an item of it fetches it from there once (Dask
    keeps it), so no worker gets what its items do not use."""
    workers = Workers(jobs_default(jobs), scheduler, client)
    pending: dict = {}
    remote = None
    began, k, here = time.perf_counter(), 0, 0
    try:
        while k < len(items) or pending:
            if workers.client is not None and remote is None and k < len(items):
                from distributed import as_completed

                remote = workers.client.scatter(shared, hash=False)
                pending = {workers.client.submit(work, remote[pick(items[j])], items[j], pure=False): j for j in range(k, len(items))}
                k = len(items)
            if pending:
                for future in as_completed(pending):
                    yield pending.pop(future), future.result()
                continue
            yield k, work(shared[pick(items[k])], items[k])
            k, here = k + 1, here + 1
            if jobs_default(jobs) > 1 and (time.perf_counter() - began) / here * (len(items) - k) > START_AFTER:
                workers.start()
    finally:
        for future in pending:
            future.cancel()
        workers.close()


def ordered(work, items: Iterator, shared, jobs: int | None = None, scheduler: str | None = None, client=None) -> Iterator:
    """``work(shared, item)`` for every item, the results in the items' order, at most ``AHEAD`` items per worker in
    flight: on ``jobs`` threads of this process (``concurrent.futures``; 1: here), or on the Dask cluster at ``scheduler``
    or ``client``'s (``shared`` sent to each worker once, each item scattered to one). ``work`` must spend its time
    where the GIL is released (numba's ``nogil`` loops, numpy, gunzip) for threads to help: a trace file's chunks. An
    error, of an item's work or of ``items`` themselves, is raised where a serial run would raise it: after every
    earlier item's result.

    Threads rather than an in-process Dask cluster: its event loop holds the GIL between tasks and its scatter hashes each
    item's bytes (``simsmem run`` of 2M instructions on 2 threads: 4.5 s wall and 7.0 s CPU through Dask, 2.6 s and 4.7
    s through ``concurrent.futures``; docs/performance.md)."""
    items = iter(items)
    if scheduler is None and client is None:
        jobs = jobs_default(jobs)
        if jobs < 2:
            yield from (work(shared, item) for item in items)
            return
        with ThreadPoolExecutor(jobs, thread_name_prefix="simsmem") as pool:
            yield from _in_order(lambda item: pool.submit(work, shared, item), items, AHEAD * jobs)
        return
    workers = Workers(1, scheduler, client)
    try:
        remote = workers.client.scatter([shared], broadcast=True, hash=False)[0]
        size = max(1, len(workers.client.scheduler_info()["workers"]))
        # (an item scattered first: sent to a worker as data, not in the task graph through the scheduler)
        yield from _in_order(lambda item: workers.client.submit(work, remote, workers.client.scatter(item, hash=False), pure=False), items, AHEAD * size)
    finally:
        workers.close()


def _in_order(submit, items: Iterator, ahead: int) -> Iterator:
    """The result of ``submit(item)`` (a future) for every item, in order, at most ``ahead`` submitted and not yet taken;
    an error of ``items`` is raised after the results of the items before it."""
    pending: deque = deque()
    cut: BaseException | None = None
    try:
        while True:
            while cut is None and len(pending) < ahead:
                try:
                    pending.append(submit(next(items)))
                except StopIteration as stop:
                    cut = stop
                except Exception as exc:  # raised once the items before it are taken
                    cut = exc
            if not pending:
                break
            yield pending.popleft().result()
        if not isinstance(cut, StopIteration):
            raise cut
    finally:
        for future in pending:
            future.cancel()
