"""``///`` authoring comments: removed, with the metadata they carry."""

from typing import Any, Dict, List, Union

from . import _lowlevel

__all__ = ["process", "strip_messages"]


def process(text: str, dialect: str = "standard") -> Dict[str, Any]:
    """Removes ``///`` comments from ``text`` and collects their metadata.

    Returns a dict with ``cleaned`` (the text without comments), ``params``
    and ``metadata`` (dicts of str), ``flow``, ``node`` (str) and ``tags``
    (list of str). ``dialect`` is ``"standard"`` or ``"llmutils"``.
    """
    return _lowlevel.comments_process(text, dialect)


def strip_messages(
    messages: Union[str, List[Dict[str, Any]]], dialect: str = "standard"
) -> List[Dict[str, Any]]:
    """Removes ``///`` comments from each chat message's ``content``.

    ``messages`` is a list of message dicts or its JSON text; every field
    but ``content`` is kept as it is. Raises ``CommentsError`` for input
    that is not a message array.
    """
    return _lowlevel.comments_strip_messages(messages, dialect)
