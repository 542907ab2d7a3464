"""Type stubs of the public API (sextant/__init__.py)."""

from os import PathLike
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import pyarrow

from .errors import ModelError as ModelError, QueryError as QueryError, SextantError as SextantError, TraceError as TraceError

_Path = Union[str, PathLike[str]]
Model = Union[Dict[str, Any], _Path]
Progress = Union[None, bool, Callable[[int], Any]]

def presets() -> Dict[str, str]: ...
def open(path_or_paths: Union[_Path, Sequence[_Path]], *, lenient: bool = False, store: bool = False) -> Session: ...

class Session:
    paths: List[str]
    warnings: List[str]
    def executions(
        self,
        model_or_preset: Model,
        *,
        tids: Sequence[int] = ...,
        process: Optional[str] = None,
        progress: Progress = None,
    ) -> pyarrow.Table: ...
    def events(self, *, progress: Progress = None) -> pyarrow.Table: ...
    def thread_states(self, *, progress: Progress = None) -> pyarrow.Table: ...
    def explain(
        self,
        model_or_preset: Model,
        *,
        execution: Optional[int] = None,
        longest: bool = False,
        tids: Sequence[int] = ...,
        process: Optional[str] = None,
        cpus: Optional[Sequence[int]] = None,
        replay_ms: float = 100.0,
        progress: Progress = None,
    ) -> Dict[str, Any]: ...
    def tasks(
        self,
        *,
        min_jobs: int = 10,
        deadline: Union[None, float, int] = None,
        progress: Progress = None,
    ) -> pyarrow.Table: ...
    def sql(self, query: str) -> pyarrow.Table: ...
