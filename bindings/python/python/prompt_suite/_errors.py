"""The exceptions of prompt_suite: one base class and one subclass per family."""

from typing import Optional

__all__ = [
    "Error",
    "TemplateError",
    "ChatTemplateError",
    "PipelineError",
    "SegmentError",
    "FlipError",
    "CommentsError",
    "ConvertError",
    "Notice",
]


class Error(Exception):
    """An error of the suite, as the command line reports it.

    ``kind`` is the command line's error kind (``syntax_error``,
    ``unknown_filter``, ...), ``message`` the sentence saying what is
    wrong, ``line`` and ``column`` (1-based, the column in characters) and
    ``snippet`` where it is, or ``None`` where the error has no place.
    ``str(e)`` is the command line's diagnostic text without colour.
    """

    kind: str
    message: str
    line: Optional[int]
    column: Optional[int]
    snippet: Optional[str]

    def __init__(
        self,
        kind: str,
        message: str,
        line: Optional[int] = None,
        column: Optional[int] = None,
        snippet: Optional[str] = None,
        text: Optional[str] = None,
    ) -> None:
        super().__init__(kind, message, line, column, snippet, text)
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.snippet = snippet
        self._text = text if text is not None else f"error[{kind}]: {message}"

    def __str__(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return f"{type(self).__name__}(kind={self.kind!r}, message={self.message!r}, line={self.line!r}, column={self.column!r})"


class TemplateError(Error):
    """A template that does not compile or render, or a state history error."""


class ChatTemplateError(Error):
    """A chat template that does not load or apply."""


class PipelineError(Error):
    """A prompt that does not build into a request body."""


class SegmentError(Error):
    """A narrative that does not segment (a reference, a bundle, a role alias)."""


class FlipError(Error):
    """A transcript that cannot be flipped for the speaker."""


class CommentsError(Error):
    """Chat messages whose comments cannot be stripped (not a message array)."""


class ConvertError(Error):
    """A request body that cannot be read or carried by the target provider."""


class Notice(UserWarning):
    """Something a build or conversion did not carry into the body (a
    parameter the provider has no field for, a name that printed nothing):
    issued with ``warnings.warn``, its text ``kind: message``."""
