"""Type stubs of the Rust module (python/src): the engine's passes."""

from os import PathLike
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

_Path = Union[str, PathLike[str]]
_Progress = Optional[Callable[[int], Any]]

class Stream:
    """One table's batches as an Arrow C stream (the PyCapsule interface),
    handed over once."""

    def __arrow_c_stream__(self, requested_schema: Optional[object] = None) -> object: ...

def presets() -> List[Tuple[str, str]]: ...
def executions(
    trace: _Path,
    model: Optional[str] = None,
    preset: Optional[str] = None,
    tids: Sequence[int] = ...,
    process: Optional[str] = None,
    lenient: bool = False,
    store: bool = False,
    progress: _Progress = None,
) -> Tuple[Stream, List[str]]: ...
def events(trace: _Path, lenient: bool = False, progress: _Progress = None) -> Tuple[Stream, List[str]]: ...
def thread_states(trace: _Path, lenient: bool = False, progress: _Progress = None) -> Tuple[Stream, List[str]]: ...
def explain(
    trace: _Path,
    model: Optional[str] = None,
    preset: Optional[str] = None,
    tids: Sequence[int] = ...,
    process: Optional[str] = None,
    execution: Optional[int] = None,
    cpus: Optional[Sequence[int]] = None,
    replay_ms: float = 100.0,
    lenient: bool = False,
    progress: _Progress = None,
) -> Tuple[str, List[str]]: ...
def tasks(
    trace: _Path,
    min_jobs: int = 10,
    deadline_ratio: Optional[float] = None,
    deadline_ns: Optional[int] = None,
    lenient: bool = False,
    progress: _Progress = None,
) -> Tuple[Stream, List[str]]: ...
def sql(query: str, traces: Sequence[_Path], lenient: bool = False, store: bool = False) -> Tuple[Stream, List[str]]: ...
