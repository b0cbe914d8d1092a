"""prompt-suite: what people write for language models, turned into exactly
what the models' APIs accept.

Templates in the bracket language (``[[ ]]``, ``[% %]``, ``->``) with state
kept across a chat, open models' chat templates as transformers renders
them, authored prompt files built into the exact request
bodies of OpenAI, Anthropic and Gemini, batches of rows, one speaker's
view of a multi-speaker transcript, Markdown narratives split into turns,
``///`` comments, and request bodies converted between providers.

Values cross as native Python objects (dict, list, str, int, float, bool,
None). Errors are ``prompt_suite.Error`` exceptions with the command line's
kind, message and position.
"""

from typing import Any, Dict, List, Optional, Union

from . import _lowlevel, chat_template, comments
from ._errors import (
    ChatTemplateError,
    CommentsError,
    ConvertError,
    Error,
    FlipError,
    Notice,
    PipelineError,
    SegmentError,
    TemplateError,
)
from ._lowlevel import (
    ChatOutcome,
    ChatTemplate,
    CompiledPrompt,
    Environment,
    Outcome,
    Pipeline,
    Prompt,
    StateHistory,
    Template,
    BatchIterator,
    apply_chat_template,
    apply_chat_template_outcome,
    batch,
    convert,
    flip,
    render,
)

__version__: str = _lowlevel.__version__

__all__ = [
    "__version__",
    "Environment",
    "Template",
    "Outcome",
    "StateHistory",
    "render",
    "chat_template",
    "ChatTemplate",
    "ChatOutcome",
    "apply_chat_template",
    "apply_chat_template_outcome",
    "Pipeline",
    "Prompt",
    "CompiledPrompt",
    "batch",
    "BatchIterator",
    "flip",
    "segment",
    "comments",
    "convert",
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


def segment(
    text: str, dialect: str = "standard", embeds_dir: "Optional[Union[str, Any]]" = None
) -> List[Dict[str, Any]]:
    """Splits a Markdown narrative with role delimiters into chat messages.

    ``@@@name`` embeds resolve in ``embeds_dir`` (a directory, never left).
    ``dialect`` is ``"standard"`` or ``"lmml"``. Raises ``SegmentError`` for
    a reference that cannot be resolved.
    """
    return _lowlevel.segment_text(text, dialect, embeds_dir)
