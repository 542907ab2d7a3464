"""sextant in Python: the trace engine inside the Python process.

Open traces with :func:`open`; a :class:`Session` answers with
``pyarrow.Table`` s handed over through the Arrow C stream interface (the
engine's buffers, not a copy) and with the engine's explanations::

    import sextant
    s = sextant.open("fixtures/scenario-a/ctf")
    jobs = s.executions("schemas/examples/periodic-rt_high.json").to_pandas()

Columns and types are those of ``sextant export`` (``schemas/exports.md``).
Passes run with the GIL released; ``progress`` takes a callable given the
per cent done (or ``True`` for a tqdm bar when tqdm is installed).
"""

import builtins
import json
import os
import warnings
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import pyarrow

from . import _native
from .errors import ModelError, QueryError, SextantError, TraceError

__all__ = ["open", "Session", "presets", "SextantError", "TraceError", "ModelError", "QueryError"]

Path = Union[str, "os.PathLike[str]"]
Model = Union[Dict[str, Any], Path]
Progress = Union[None, bool, Callable[[int], Any]]


def presets() -> Dict[str, str]:
    """Every preset's name and what it measures, as the engine describes it."""
    return dict(_native.presets())


def open(path_or_paths: Union[Path, Sequence[Path]], *, lenient: bool = False, store: bool = False) -> "Session":
    """A session over one trace or several.

    A trace is a CTF directory, an ftrace text file, a trace-cmd trace.dat or
    a BTF file. With several, each table has the rows of every trace in the
    order given, and a ``trace`` column (the path) last.
    ``lenient`` skips malformed BTF rows instead of stopping at the first.
    ``store`` reads executions (in :meth:`Session.executions` and
    :meth:`Session.sql`) from each trace's store in the cache directory
    when it holds them, and keeps those a pass found there, as ``sextant
    analyze`` does by default: a second question reads no trace.
    """
    if isinstance(path_or_paths, (str, bytes, os.PathLike)):
        paths = [os.fspath(path_or_paths)]
        several = False
    else:
        paths = [os.fspath(p) for p in path_or_paths]
        several = True
        if not paths:
            raise ValueError("sextant.open: no trace given")
    for p in paths:
        if not os.path.exists(p):
            raise TraceError(f"{p}: no such file or directory", p)
    return Session(paths, several, lenient, store)


class Session:
    """Traces opened by :func:`open`; each method reads them in one pass."""

    def __init__(self, paths: List[str], several: bool, lenient: bool, store: bool = False):
        self.paths = paths
        self._several = several
        self._lenient = lenient
        self._store = store
        #: The warnings of the last pass (lost events, what a model lacks).
        self.warnings: List[str] = []

    def __repr__(self) -> str:
        return f"sextant.Session({self.paths!r})"

    def executions(
        self,
        model_or_preset: Model,
        *,
        tids: Sequence[int] = (),
        process: Optional[str] = None,
        progress: Progress = None,
    ) -> pyarrow.Table:
        """Every execution of a model, measured: one row each.

        ``model_or_preset`` is a model as a dict (``schemas/execution-model.schema.json``),
        the path of a model's JSON file, or ``"preset:NAME"`` (:func:`presets`);
        ``tids`` and ``process`` (a regex on thread names) choose a preset's
        threads. Columns: ``index, start, end, duration, running, preempted,
        blocked, waiting`` (ns), ``tid, start_tid, end_tid, start_comm,
        end_comm, cpus, prio, deadline_miss``, as ``sextant export`` writes them.
        """
        model, preset = _model_or_preset(model_or_preset)
        return self._table(
            lambda path, cb: _native.executions(
                path,
                model=model,
                preset=preset,
                tids=list(tids),
                process=process,
                lenient=self._lenient,
                store=self._store,
                progress=cb,
            ),
            progress,
        )

    def events(self, *, progress: Progress = None) -> pyarrow.Table:
        """Every event in time order: ``ts, name, cpu, tid, payload`` (JSON text)."""
        return self._table(lambda path, cb: _native.events(path, lenient=self._lenient, progress=cb), progress)

    def thread_states(self, *, progress: Progress = None) -> pyarrow.Table:
        """Every thread's state intervals: ``tid, pid, comm, thread_start,
        thread_end, start, end, state``."""
        return self._table(lambda path, cb: _native.thread_states(path, lenient=self._lenient, progress=cb), progress)

    def explain(
        self,
        model_or_preset: Model,
        *,
        execution: Optional[int] = None,
        longest: bool = False,
        tids: Sequence[int] = (),
        process: Optional[str] = None,
        cpus: Optional[Sequence[int]] = None,
        replay_ms: float = 100.0,
        progress: Progress = None,
    ) -> Dict[str, Any]:
        """Why one execution was late: the document ``sextant explain
        --format json`` writes (critical path, who ran while it waited, the
        priority inversions, related threads, kernel facilities, causes and
        diagnosis), as a dict.

        Give ``execution`` (its index, as :meth:`executions` lists them) or
        ``longest=True``. ``cpus`` keeps only those CPUs' threads in who ran;
        ``replay_ms`` is read before the execution so each thread's state is
        known at its start. Of a folder of several hosts, the executions are
        each host's, merged in start order (as explain numbers them). One
        trace only.
        """
        if (execution is None) == (not longest):
            raise ValueError("explain: give exactly one of execution=K and longest=True")
        path = self._one("explain")
        model, preset = _model_or_preset(model_or_preset)
        self.warnings = []
        with _progress(progress, path) as cb:
            text, said = _native.explain(
                path,
                model=model,
                preset=preset,
                tids=list(tids),
                process=process,
                execution=execution,
                cpus=None if cpus is None else list(cpus),
                replay_ms=replay_ms,
                lenient=self._lenient,
                progress=cb,
            )
        self._warn(said, stacklevel=3)
        return json.loads(text)

    def tasks(
        self,
        *,
        min_jobs: int = 10,
        deadline: Union[None, float, int] = None,
        progress: Progress = None,
    ) -> pyarrow.Table:
        """The trace's periodic and sporadic tasks, found by themselves: one
        row per task, with the keys of ``sextant tasks --format json``'s
        tasks as columns (``host`` null for a single host).
        ``model`` is the task's execution model as JSON text (``json.loads``
        it, or give the dict to :meth:`executions`). ``deadline`` is a share
        of the period (a float: 0.8) or a time in ns (an int); by default
        the period.
        """
        if isinstance(deadline, bool):
            raise TypeError("tasks: deadline is a float (share of the period) or an int (ns)")
        ratio = deadline if isinstance(deadline, float) else None
        ns = deadline if isinstance(deadline, int) else None
        return self._table(
            lambda path, cb: _native.tasks(
                path,
                min_jobs=min_jobs,
                deadline_ratio=ratio,
                deadline_ns=ns,
                lenient=self._lenient,
                progress=cb,
            ),
            progress,
        )

    def sql(self, query: str) -> pyarrow.Table:
        """The answer of a SQL query over the session's traces, as ``sextant
        sql`` gives it (Apache DataFusion's dialect).

        Tables: ``events``, ``thread_states``, ``threads``, and the table
        functions ``executions('MODEL.json' | 'preset:NAME')`` and
        ``tasks([MIN_JOBS [, DEADLINE]])``, each with ``host`` and ``trace``
        columns first (``trace``: the path relative to the path given to
        :func:`open`; a folder given there means every trace below it).
        Filters on ``trace``, ``host`` and event names leave other traces
        unread. A trace that cannot be read raises :class:`TraceError`; a
        query that cannot be planned, :class:`QueryError`. Nothing is stored.
        """
        self.warnings = []
        raw, said = _native.sql(query, self.paths, lenient=self._lenient, store=self._store)
        self._warn(said, stacklevel=3)
        return pyarrow.table(raw)

    def _one(self, what: str) -> str:
        if self._several:
            raise ValueError(f"{what}: open one trace (sextant.open(path)), not a list")
        return self.paths[0]

    def _warn(self, said: List[str], stacklevel: int) -> None:
        # `stacklevel` counts from here: 2 is our caller.
        for w in said:
            warnings.warn(w, stacklevel=stacklevel)
        self.warnings.extend(said)

    def _table(self, read, progress: Progress, to_table=pyarrow.table) -> pyarrow.Table:
        """``to_table`` of what ``read(path, progress)`` gives for each trace
        (an Arrow stream by default), with a ``trace`` column when there are
        several, one after the other; the warnings said and kept."""
        tables = []
        self.warnings = []
        for path in self.paths:
            with _progress(progress, path) as cb:
                raw, said = read(path, cb)
            # _warn, _table, the public method, its caller.
            self._warn(said, stacklevel=4)
            table = to_table(raw)
            if self._several:
                table = table.append_column(
                    pyarrow.field("trace", pyarrow.string(), nullable=False),
                    pyarrow.array([path] * table.num_rows, pyarrow.string()),
                )
            tables.append(table)
        return tables[0] if len(tables) == 1 else pyarrow.concat_tables(tables)


def _model_or_preset(model: Model):
    """(model JSON, preset name): one of the two."""
    if isinstance(model, dict):
        return json.dumps(model), None
    text = os.fspath(model)
    if text.startswith("preset:"):
        return None, text[len("preset:"):]
    if text.lstrip().startswith("{"):
        return text, None
    try:
        with builtins.open(text, encoding="utf-8") as f:
            return f.read(), None
    except OSError as e:
        raise ModelError(f"reading the model {text}: {e.strerror}") from None


class _progress:
    """The callable a pass reports to: the user's, a tqdm bar, or none."""

    def __init__(self, progress: Progress, path: str):
        self.bar = None
        self.callback: Optional[Callable[[int], Any]] = None
        if progress is True:
            try:
                from tqdm.auto import tqdm
            except ImportError:
                return
            self.bar = tqdm(total=100, desc=os.path.basename(path.rstrip("/")), unit="%")
            self.callback = self._tick
        elif callable(progress):
            self.callback = progress

    def _tick(self, percent: int) -> None:
        self.bar.update(percent - self.bar.n)

    def __enter__(self):
        return self.callback

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.close()
        return False
