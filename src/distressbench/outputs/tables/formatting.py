"""How a cell shows a value: the number formats of the Markdown, LaTeX and HTML tables.

Percentages with one decimal (the stored fraction rounded half up from its shortest repr),
differences in signed percentage points, ratios with three decimals, counts with thousands
separators, bootstrap intervals in brackets after the value, MISSING for a missing value.
FORMATTERS maps a `Column`'s fmt to its formatter; INTERVAL_LEVEL is the level every
interval's caption and header prints.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from distressbench import settings

MISSING = "—"
MINUS = "−"


def _decimal(value: Any, *, scale: int, places: int) -> Decimal | None:
    """value × 10**scale rounded half up to `places` decimals, from its shortest repr."""
    if value is None:
        return None
    number = float(value)
    if number != number:  # NaN
        return None
    exponent = Decimal(1).scaleb(-places)
    return Decimal(repr(number)).scaleb(scale).quantize(exponent, rounding=ROUND_HALF_UP)


def _signed_text(number: Decimal, *, plus: bool) -> str:
    if number == 0:
        return str(abs(number))
    if number < 0:
        return MINUS + str(-number)
    return f"+{number}" if plus else str(number)


def pct(value: Any) -> str:
    """A fraction as a percentage with one decimal: 0.8885 -> '88.9'."""
    number = _decimal(value, scale=2, places=1)
    return MISSING if number is None else _signed_text(number, plus=False)


def pp(value: Any) -> str:
    """A difference of fractions in signed percentage points: -0.0081 -> '−0.8'."""
    number = _decimal(value, scale=2, places=1)
    return MISSING if number is None else _signed_text(number, plus=True)


def ratio(value: Any) -> str:
    """A ratio that is not a share (Cohen's kappa), three decimals."""
    number = _decimal(value, scale=0, places=3)
    return MISSING if number is None else _signed_text(number, plus=False)


def count(value: Any) -> str:
    """A count or other number: integers with thousands separators, else one decimal."""
    if value is None or (isinstance(value, float) and value != value):
        return MISSING
    number = Decimal(repr(float(value))) if isinstance(value, float) else Decimal(int(value))
    if number == number.to_integral_value():
        return f"{int(number):,}"
    return _signed_text(number.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP), plus=False)


def text(value: Any) -> str:
    return MISSING if value is None else str(value)


def _pct_ci(value: Any, low: Any, high: Any) -> str:
    if low is None or high is None:
        return pct(value)
    return f"{pct(value)} [{pct(low)}, {pct(high)}]"


def _interval(low: Any, high: Any) -> str:
    if low is None or high is None:
        return MISSING
    return f"[{count(low)}, {count(high)}]"


def _ratio_ci(value: Any, low: Any, high: Any) -> str:
    if low is None or high is None:
        return ratio(value)
    return f"{ratio(value)} [{ratio(low)}, {ratio(high)}]"


def _statistic(value: Any, unit: Any) -> str:
    return f"{pct(value)}%" if unit == "share" and value is not None else count(value)


FORMATTERS: dict[str, Callable[..., str]] = {
    "text": text,
    "count": count,
    "pct": pct,
    "pct_ci": _pct_ci,
    "pp": pp,
    "ratio": ratio,
    "interval": _interval,
    "ratio_ci": _ratio_ci,
    "statistic": _statistic,
}


def interval_level(alpha: float) -> str:
    """The percentile intervals' level as the captions print it: 0.05 -> '95%', 0.025 -> '97.5%'."""
    return f"{(1 - float(alpha)) * 100:g}%"


# The level of every bootstrap interval the tables, report and figures show: 1 - the dbt var
# bootstrap_alpha, the alpha the bootstrap models were built with.
INTERVAL_LEVEL: str = interval_level(settings.dbt_var("bootstrap_alpha"))
