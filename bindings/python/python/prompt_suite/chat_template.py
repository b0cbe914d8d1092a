"""Open models' chat templates, rendered exactly as transformers'
``tokenizer.apply_chat_template(messages, tokenize=False)`` renders them: a
drop-in that needs no tokenizer, no network and no torch.

``template`` is a ``ChatTemplate``, a path (``os.PathLike``, or a one-line
``str`` without ``{{`` or ``{%`` ending in ``.jinja`` or ``.json``) to a
``.jinja`` file, ``chat_template.json`` or ``tokenizer_config.json`` (the
special tokens are taken from it), or else the template's text: any other
``str`` is text, never a file to read. Every
field of a message, tool results and documents are data: a special token of
the model coming out of them is ``ChatTemplateError`` of kind
``special_token_in_data`` unless ``allow_special_tokens=True``.
"""

from typing import Any, Dict, List, Optional

from . import _lowlevel
from ._lowlevel import ChatOutcome, ChatTemplate

__all__ = ["apply", "apply_outcome", "ChatTemplate", "ChatOutcome"]


def apply(
    template: Any,
    messages: List[Dict[str, Any]],
    tools: Optional[List[Dict[str, Any]]] = None,
    add_generation_prompt: bool = False,
    now: Any = None,
    special_tokens: Optional[List[str]] = None,
    allow_special_tokens: bool = False,
    **variables: Any,
) -> str:
    """The conversation as the template renders it (``str``). ``now`` (an
    aware ``datetime`` or an RFC 3339 ``str``) fixes the time
    ``strftime_now`` reads; ``special_tokens`` adds tokens to refuse in the
    messages; ``documents=`` and ``name=`` (a config's named template) and
    any other variables are keyword arguments."""
    return _lowlevel.apply_chat_template(
        template, messages, tools, add_generation_prompt, now, special_tokens, allow_special_tokens, **variables
    )


def apply_outcome(
    template: Any,
    messages: List[Dict[str, Any]],
    tools: Optional[List[Dict[str, Any]]] = None,
    add_generation_prompt: bool = False,
    now: Any = None,
    special_tokens: Optional[List[str]] = None,
    allow_special_tokens: bool = False,
    **variables: Any,
) -> ChatOutcome:
    """As ``apply``, returning a ``ChatOutcome``: ``output``,
    ``data_ranges`` (the parts of it that came from data) and
    ``generation_ranges`` (what ``{% generation %}`` blocks wrote), as
    ``[start, end)`` pairs of ``str`` indices."""
    return _lowlevel.apply_chat_template_outcome(
        template, messages, tools, add_generation_prompt, now, special_tokens, allow_special_tokens, **variables
    )
