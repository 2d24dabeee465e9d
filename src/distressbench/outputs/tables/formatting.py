"""How a cell shows a value: the number formats of the Markdown, LaTeX and HTML tables.

Percentages with one decimal (the stored fraction rounded half up from its shortest repr),
differences in signed percentage points, ratios with three decimals, counts with thousands
separators, bootstrap intervals in brackets after the value, MISSING for a missing value.
FORMATTERS maps a `Column`'s fmt to its formatter; `Wording` holds what the captions and
headers print of the project's dbt vars (the intervals' level, the calibration floor's mark).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from distressbench.settings import Settings

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


@dataclass(frozen=True)
class Wording:
    """What the tables, the report and its figures print of the project's dbt vars, read once
    from the command's Settings and passed down: the level of every bootstrap interval (1 - the
    var bootstrap_alpha, the alpha the bootstrap models were built with: "95%"), the mark of a
    judge below its calibration floor (calibration_floor_mark), the floor
    (calibration_kappa_floor) and the pairs it needs (calibration_min_pairs). Captions, headers
    and the report's words name them {level}, {floor_mark}, {kappa_floor} and {min_pairs};
    `fill` puts the values in."""

    level: str
    floor_mark: str
    kappa_floor: str
    min_pairs: str

    @classmethod
    def from_settings(cls, settings: Settings) -> Wording:
        return cls(
            level=interval_level(settings.var("bootstrap_alpha")),
            floor_mark=str(settings.var("calibration_floor_mark")),
            kappa_floor=str(settings.var("calibration_kappa_floor")),
            min_pairs=str(settings.var("calibration_min_pairs")),
        )

    def fill(self, text: str) -> str:
        """`text` with each {name} of a field replaced by its value (other braces kept)."""
        for name, value in asdict(self).items():
            text = text.replace("{" + name + "}", value)
        return text
