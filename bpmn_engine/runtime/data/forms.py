"""A user task's form fields, checked when it is completed (Camunda 7 form field semantics).

`--var approved=maybe` must not approve a `type="boolean"` field because a non-empty string is
truthy: values are converted as Camunda converts a submitted form ("true"/"false" for boolean,
digits for long) and refused, before anything is committed, when they do not fit the field's
type, its enum values or its validation constraints (required, minlength, maxlength, min, max,
readonly). Fields of other types (custom ones) and unknown constraints are left to the process.
"""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any

from bpmn_engine.errors import UsageError
from bpmn_engine.model.elements import FormField

LONG_MIN, LONG_MAX = -(2**63), 2**63 - 1  # a Java long, as Camunda stores it
_LONG_TEXT = re.compile(r"^[+-]?\d+$")


class FormValueError(UsageError):
    """A value given for a form field does not fit it; names the task, the field and the value."""


def checked_form(
    task: str, fields: tuple[FormField, ...], values: dict[str, Any]
) -> dict[str, Any]:
    """`values` with each form field's value converted to its type; raises `FormValueError`."""
    checked = dict(values)
    for field in fields:
        if field.id in values and values[field.id] is not None:
            checked[field.id] = _converted(task, field, values[field.id])
        _check_constraints(task, field, field.id in values, checked.get(field.id))
    return checked


def _refuse(task: str, field: FormField, value: Any, why: str) -> FormValueError:
    return FormValueError(f"user task {task}: form field {field.id!r} = {value!r}: {why}")


def _converted(task: str, field: FormField, value: Any) -> Any:
    kind = (field.type or "").lower()
    if kind == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise _refuse(task, field, value, "not a boolean (true or false)")
    if kind in ("long", "integer", "int"):
        number = value
        if isinstance(value, str) and _LONG_TEXT.match(value.strip()):
            number = int(value.strip())
        if isinstance(number, bool) or not isinstance(number, int):
            raise _refuse(task, field, value, "not a whole number (long)")
        if not LONG_MIN <= number <= LONG_MAX:
            raise _refuse(task, field, value, "out of the range of a long")
        return number
    if kind == "string":
        if isinstance(value, str):
            return value
        if isinstance(value, int | float) and not isinstance(value, bool):
            return str(value)  # `--var zip=12345` reads as a number; the field wants its text
        raise _refuse(task, field, value, "not a string")
    if kind == "date":
        if isinstance(value, str) and _is_date(value.strip()):
            return value.strip()
        raise _refuse(task, field, value, "not a date (dd/MM/yyyy or ISO 8601)")
    if kind == "enum":
        text = value if isinstance(value, str) else None
        if text is None or (field.values and text not in field.values):
            allowed = ", ".join(field.values) or "its enum values"
            raise _refuse(task, field, value, f"not one of {allowed}")
        return text
    return value


def _is_date(text: str) -> bool:
    for parse in (
        lambda t: datetime.strptime(t, "%d/%m/%Y"),  # Camunda's default date format
        date.fromisoformat,
        datetime.fromisoformat,
    ):
        try:
            parse(text)
        except ValueError:
            continue
        return True
    return False


def _check_constraints(task: str, field: FormField, given: bool, value: Any) -> None:
    for name, config in field.constraints:
        name = name.strip().lower()
        if name == "required" and (value is None or value == ""):
            raise _refuse(task, field, value, "required: give it a value")
        if name == "readonly" and given:
            raise _refuse(task, field, value, "read-only: it cannot be set")
        if value is None or name not in ("minlength", "maxlength", "min", "max"):
            continue
        limit = _limit(task, field, name, config)
        if name in ("minlength", "maxlength"):
            size = len(str(value))
            if name == "minlength" and size < limit:
                raise _refuse(task, field, value, f"shorter than {limit:g} characters")
            if name == "maxlength" and size > limit:
                raise _refuse(task, field, value, f"longer than {limit:g} characters")
        elif isinstance(value, int | float) and not isinstance(value, bool):
            if name == "min" and value < limit:
                raise _refuse(task, field, value, f"less than the minimum {limit:g}")
            if name == "max" and value > limit:
                raise _refuse(task, field, value, f"more than the maximum {limit:g}")


def _limit(task: str, field: FormField, name: str, config: str | None) -> float:
    try:
        return float(config or "")
    except ValueError:
        raise FormValueError(
            f"user task {task}: form field {field.id!r}: constraint {name} needs a number as "
            f"its config, not {config!r}"
        ) from None
