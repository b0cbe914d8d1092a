import os
from typing import Any, Dict, List, Optional, Union

from . import chat_template as chat_template
from . import comments as comments
from ._errors import (
    ChatTemplateError as ChatTemplateError,
    CommentsError as CommentsError,
    ConvertError as ConvertError,
    Error as Error,
    FlipError as FlipError,
    Notice as Notice,
    PipelineError as PipelineError,
    SegmentError as SegmentError,
    TemplateError as TemplateError,
)
from ._lowlevel import (
    BatchIterator as BatchIterator,
    ChatOutcome as ChatOutcome,
    ChatTemplate as ChatTemplate,
    CompiledPrompt as CompiledPrompt,
    Environment as Environment,
    Outcome as Outcome,
    Pipeline as Pipeline,
    Prompt as Prompt,
    StateHistory as StateHistory,
    Template as Template,
    apply_chat_template as apply_chat_template,
    apply_chat_template_outcome as apply_chat_template_outcome,
    batch as batch,
    convert as convert,
    flip as flip,
    render as render,
)

__version__: str

def segment(
    text: str, dialect: str = "standard", embeds_dir: Optional[Union[str, "os.PathLike[str]"]] = None
) -> List[Dict[str, Any]]: ...
