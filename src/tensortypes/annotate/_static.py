"""What static type checkers see for the dtype classes (layer 5: ``annotate``).

Imported only under ``TYPE_CHECKING``: each dtype class is ``typing.Annotated``, so
mypy and pyright read ``Float32[np.ndarray, "b c"]`` as ``np.ndarray`` with metadata.
(``Bool = Annotated`` would not do: ``Annotated`` is a special form that static
checkers accept only under its own name or an ``import ... as`` alias.)
"""

from typing import Annotated as BFloat16  # noqa: F401
from typing import Annotated as Bool  # noqa: F401
from typing import Annotated as Complex  # noqa: F401
from typing import Annotated as Complex64  # noqa: F401
from typing import Annotated as Complex128  # noqa: F401
from typing import Annotated as Float  # noqa: F401
from typing import Annotated as Float8e4m3b11fnuz  # noqa: F401
from typing import Annotated as Float8e4m3fn  # noqa: F401
from typing import Annotated as Float8e4m3fnuz  # noqa: F401
from typing import Annotated as Float8e5m2  # noqa: F401
from typing import Annotated as Float8e5m2fnuz  # noqa: F401
from typing import Annotated as Float16  # noqa: F401
from typing import Annotated as Float32  # noqa: F401
from typing import Annotated as Float64  # noqa: F401
from typing import Annotated as Inexact  # noqa: F401
from typing import Annotated as Int  # noqa: F401
from typing import Annotated as Int2  # noqa: F401
from typing import Annotated as Int4  # noqa: F401
from typing import Annotated as Int8  # noqa: F401
from typing import Annotated as Int16  # noqa: F401
from typing import Annotated as Int32  # noqa: F401
from typing import Annotated as Int64  # noqa: F401
from typing import Annotated as Integer  # noqa: F401
from typing import Annotated as Key  # noqa: F401
from typing import Annotated as Num  # noqa: F401
from typing import Annotated as Real  # noqa: F401
from typing import Annotated as Shaped  # noqa: F401
from typing import Annotated as UInt  # noqa: F401
from typing import Annotated as UInt2  # noqa: F401
from typing import Annotated as UInt4  # noqa: F401
from typing import Annotated as UInt8  # noqa: F401
from typing import Annotated as UInt16  # noqa: F401
from typing import Annotated as UInt32  # noqa: F401
from typing import Annotated as UInt64  # noqa: F401
