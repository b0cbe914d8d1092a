"""Type stubs of the compiled core (use the names of ``prompt_suite``)."""

import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Tuple, Union

JSON = Union[None, bool, int, float, str, List["JSON"], Dict[str, "JSON"]]
Context = Optional[Dict[str, Any]]

__version__: str

class Environment:
    """A template environment: syntax, profile, whitespace options, strict
    undefined values, host filters/tests/functions and named templates."""

    def __init__(
        self,
        syntax: str = "brackets",
        profile: str = "reference",
        trim_blocks: bool = False,
        lstrip_blocks: bool = False,
        strict: bool = False,
    ) -> None: ...
    @property
    def syntax(self) -> str: ...
    @property
    def profile(self) -> str: ...
    def add_filter(self, name: str, callable: Callable[..., Any]) -> None: ...
    def add_test(self, name: str, callable: Callable[..., Any]) -> None: ...
    def add_function(self, name: str, callable: Callable[..., Any]) -> None: ...
    def add_template(self, name: str, source: str) -> None: ...
    def compile(self, source: str) -> "Template": ...

class Template:
    """A compiled template: immutable, thread-safe; rendering releases the GIL."""

    @property
    def source(self) -> str: ...
    def render(
        self,
        state: Context = None,
        local: Context = None,
        global_: Context = None,
        seed: Optional[int] = None,
    ) -> str: ...
    def render_outcome(
        self,
        state: Context = None,
        local: Context = None,
        global_: Context = None,
        seed: Optional[int] = None,
    ) -> "Outcome": ...

class Outcome:
    """What a render produced and did."""

    @property
    def output(self) -> str: ...
    @property
    def writes(self) -> List[Dict[str, Any]]: ...
    @property
    def effects(self) -> List[Dict[str, Any]]: ...
    @property
    def data_ranges(self) -> List[Tuple[int, int]]: ...
    @property
    def seed(self) -> int: ...

def render(source: str, seed: Optional[int] = None, **state: Any) -> str: ...

class StateHistory:
    """State kept in a chat's messages and swipes."""

    def __init__(self) -> None: ...
    @staticmethod
    def from_json(text: str) -> "StateHistory": ...
    def to_json(self) -> str: ...
    def record(self, message: int, outcome: Outcome) -> None: ...
    def state_at(self, message: int) -> Dict[str, Any]: ...
    def push_message(self) -> int: ...
    def swipe(self, message: int) -> int: ...
    def select(self, message: int, swipe: int) -> None: ...
    def delete(self, message: int) -> None: ...
    def truncate(self, length: int) -> None: ...
    def __len__(self) -> int: ...

class ChatTemplate:
    """A model's chat template, loaded once; immutable, thread-safe."""

    def __init__(
        self,
        source: str,
        special_tokens: Optional[List[str]] = None,
        allow_special_tokens: bool = False,
        now: Any = None,
    ) -> None: ...
    @staticmethod
    def from_config(
        text: str,
        name: Optional[str] = None,
        special_tokens: Optional[List[str]] = None,
        allow_special_tokens: bool = False,
        now: Any = None,
    ) -> "ChatTemplate": ...
    @staticmethod
    def from_file(
        path: Union[str, "os.PathLike[str]"],
        name: Optional[str] = None,
        special_tokens: Optional[List[str]] = None,
        allow_special_tokens: bool = False,
        now: Any = None,
    ) -> "ChatTemplate": ...
    def apply(
        self,
        messages: List[Dict[str, Any]],
        tools: Optional[List[Dict[str, Any]]] = None,
        add_generation_prompt: bool = False,
        documents: Any = None,
        **variables: Any,
    ) -> str: ...
    def apply_outcome(
        self,
        messages: List[Dict[str, Any]],
        tools: Optional[List[Dict[str, Any]]] = None,
        add_generation_prompt: bool = False,
        documents: Any = None,
        **variables: Any,
    ) -> "ChatOutcome": ...
    @property
    def special_tokens(self) -> List[str]: ...

class ChatOutcome:
    """A conversation rendered through a chat template."""

    @property
    def output(self) -> str: ...
    @property
    def data_ranges(self) -> List[Tuple[int, int]]: ...
    @property
    def generation_ranges(self) -> List[Tuple[int, int]]: ...

def apply_chat_template(
    template: Any,
    messages: List[Dict[str, Any]],
    tools: Optional[List[Dict[str, Any]]] = None,
    add_generation_prompt: bool = False,
    now: Any = None,
    special_tokens: Optional[List[str]] = None,
    allow_special_tokens: bool = False,
    *,
    documents: Any = None,
    name: Optional[str] = None,
    **variables: Any,
) -> str: ...
def apply_chat_template_outcome(
    template: Any,
    messages: List[Dict[str, Any]],
    tools: Optional[List[Dict[str, Any]]] = None,
    add_generation_prompt: bool = False,
    now: Any = None,
    special_tokens: Optional[List[str]] = None,
    allow_special_tokens: bool = False,
    *,
    documents: Any = None,
    name: Optional[str] = None,
    **variables: Any,
) -> ChatOutcome: ...

class Prompt:
    """An authored prompt: its text and where its files resolve."""

    def __init__(self, text: str) -> None: ...
    @staticmethod
    def from_path(path: Union[str, "os.PathLike[str]"]) -> "Prompt": ...
    @property
    def text(self) -> str: ...

class Pipeline:
    """A provider and its request-level settings; immutable, thread-safe."""

    def __init__(
        self,
        provider: str = "openai",
        params: Optional[Mapping[str, Any]] = None,
        role_aliases: Optional[Mapping[str, str]] = None,
        chat_template: Optional[Union[str, "os.PathLike[str]", "ChatTemplate"]] = None,
        tools: Optional[Union[str, List[Dict[str, Any]]]] = None,
        tool_choice: Optional[Union[str, Dict[str, Any]]] = None,
        response_schema: Optional[Union[str, Dict[str, Any]]] = None,
        environment: Optional[Environment] = None,
    ) -> None: ...
    @property
    def provider(self) -> str: ...
    def compile(self, prompt: Union[str, Prompt]) -> "CompiledPrompt": ...
    def build(
        self,
        prompt: Union[str, Prompt],
        context: Context = None,
        seed: Optional[int] = None,
        transcript: Optional[Union[str, List[Dict[str, Any]]]] = None,
        speaker: Optional[str] = None,
    ) -> Dict[str, Any]: ...

class CompiledPrompt:
    """A prompt compiled by a pipeline, for many builds."""

    @property
    def text(self) -> str: ...
    def build(
        self,
        context: Context = None,
        seed: Optional[int] = None,
        transcript: Optional[Union[str, List[Dict[str, Any]]]] = None,
        speaker: Optional[str] = None,
    ) -> Dict[str, Any]: ...
    def batch(
        self,
        rows: Iterable[Any],
        format: str = "bodies",
        id_field: Optional[str] = None,
        seed: Optional[int] = None,
        jobs: Optional[int] = None,
        first_row: int = 0,
        text: bool = False,
        tagged: bool = False,
    ) -> "BatchIterator": ...

class BatchIterator(Iterator[Any]):
    """One dict per row, in row order (``text=True``: each line's JSON
    text; ``tagged=True``: ``(row, line, error)`` tuples)."""

    def __iter__(self) -> "BatchIterator": ...
    def __next__(self) -> Any: ...

def batch(
    prompt: Union[str, Prompt],
    rows: Iterable[Dict[str, Any]],
    provider: str = "openai",
    format: str = "bodies",
    id_field: Optional[str] = None,
    params: Optional[Mapping[str, Any]] = None,
    seed: Optional[int] = None,
    jobs: Optional[int] = None,
    first_row: int = 0,
    text: bool = False,
    tagged: bool = False,
    chat_template: Optional[Union[str, "os.PathLike[str]", "ChatTemplate"]] = None,
) -> BatchIterator: ...
def flip(
    transcript: Union[str, List[Dict[str, Any]]],
    speaker: Union[str, int, float],
    system: Optional[str] = None,
    instruction: Optional[str] = None,
    dialect: str = "standard",
) -> List[Dict[str, Any]]: ...
def segment_text(
    text: str, dialect: str = "standard", embeds_dir: Optional[Union[str, "os.PathLike[str]"]] = None
) -> List[Dict[str, Any]]: ...
def comments_process(text: str, dialect: str = "standard") -> Dict[str, Any]: ...
def comments_strip_messages(
    messages: Union[str, List[Dict[str, Any]]], dialect: str = "standard"
) -> List[Dict[str, Any]]: ...
def convert(
    body: Union[str, Dict[str, Any]], provider: str = "anthropic", params: Optional[Mapping[str, Any]] = None
) -> Dict[str, Any]: ...
