"""The MCP forms (docs/mcp.md): the server form (URL or command, headers and environment as
``NAME=value`` lines, timeout; it only validates, ``mcp.services.mcp_server_save`` writes) and
the tool page's test-call arguments built from the tool's inputSchema (``ToolArgumentsForm``)."""

from __future__ import annotations

import json
from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from skill_rule.tooldefs import dialect_validator
from skills_app.web.forms import ServiceForm


def _pairs_text(mapping: dict[str, str], sep: str, *, masked: bool) -> str:
    from skills_app.models import SECRET_MASK

    return "\n".join(f"{k}{sep}{SECRET_MASK if masked else v}" for k, v in (mapping or {}).items())


def _parse_pairs(text: str, sep: str, field_label: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for number, line in enumerate((text or "").splitlines(), start=1):
        if not line.strip():
            continue
        name, found, value = line.partition(sep)
        if not found or not name.strip():
            raise forms.ValidationError(
                gettext("line %(line)s of %(field)s: write NAME%(sep)sVALUE")
                % {"line": number, "field": field_label, "sep": sep}
            )
        out[name.strip()] = value.strip()
    return out


class McpServerForm(ServiceForm):
    """Create or edit an MCP server record: a valid form gives the arguments of
    ``services.mcp_server_save``. Header and environment values are secrets: the form shows them
    as ``SECRET_MASK``; posting the mask back keeps the stored value."""

    name_unknown_fields = False

    name = forms.CharField(
        label=_("Name"),
        max_length=40,
        help_text=_(
            "Stable: lowercase letter first, then lowercase letters, digits, _ or -. Clashing tool names are prefixed with it."
        ),
        widget=forms.TextInput(attrs={"class": "mono", "autocomplete": "off"}),
    )
    transport = forms.ChoiceField(
        label=_("Transport"), choices=(("stdio", "stdio"), ("streamable-http", "streamable HTTP"))
    )
    command = forms.CharField(
        label=_("Command (stdio)"), required=False, widget=forms.TextInput(attrs={"class": "mono"})
    )
    args = forms.CharField(
        label=_("Arguments (stdio, one per line)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "class": "mono"}),
    )
    env = forms.CharField(
        label=_("Environment (stdio, NAME=VALUE per line; values are secrets)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "class": "mono"}),
    )
    url = forms.CharField(
        label=_("URL (streamable HTTP)"), required=False, widget=forms.TextInput(attrs={"class": "mono"})
    )
    headers = forms.CharField(
        label=_("Headers (streamable HTTP, Name: value per line; values are secrets)"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 2, "class": "mono"}),
    )
    timeout_seconds = forms.FloatField(label=_("Time limit (seconds)"), min_value=1, max_value=600, initial=20)
    enabled = forms.BooleanField(label=_("Enabled"), required=False, initial=True)

    def __init__(self, *args: Any, instance: Any = None, **kwargs: Any) -> None:
        self.instance = instance
        if instance is not None and "initial" not in kwargs:
            kwargs["initial"] = {
                "name": instance.name,
                "transport": instance.transport,
                "command": instance.command,
                "args": "\n".join(instance.args or []),
                "env": _pairs_text(instance.env, "=", masked=True),
                "url": instance.url,
                "headers": _pairs_text(instance.headers, ": ", masked=True),
                "timeout_seconds": instance.timeout_seconds,
                "enabled": instance.enabled,
            }
        super().__init__(*args, **kwargs)
        if instance is not None:
            self.fields["name"].disabled = True

    def clean_env(self) -> dict[str, str]:
        return _parse_pairs(self.cleaned_data.get("env", ""), "=", str(self.fields["env"].label))

    def clean_headers(self) -> dict[str, str]:
        return _parse_pairs(self.cleaned_data.get("headers", ""), ":", str(self.fields["headers"].label))

    def service_arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``services.mcp_server_save`` (valid form)."""
        data = self.cleaned_data
        return dict(
            name=(self.instance.name if self.instance else data["name"].strip()),
            transport=data["transport"],
            command=data.get("command", ""),
            args=[a.strip() for a in data.get("args", "").splitlines() if a.strip()],
            env=data.get("env") or {},
            url=data.get("url", ""),
            headers=data.get("headers") or {},
            timeout_seconds=data["timeout_seconds"],
            enabled=bool(data.get("enabled")),
            instance=self.instance,
        )


# --- the test call's arguments, as a form built from the tool's inputSchema --------------------

#: Keywords of a property schema that a field of its own cannot offer (the argument is then a
#: JSON value field): combinations, references, a constant.
_COMPOSITE = ("anyOf", "oneOf", "allOf", "not", "$ref", "$dynamicRef", "if", "const")
#: Keywords of the whole inputSchema that tie arguments together: no form (the JSON box only).
_TOP_LEVEL_COMPOSITE = (*_COMPOSITE, "dependentRequired", "dependentSchemas", "dependencies")
#: The JSON types a field offers.
_SCALARS = ("string", "integer", "number", "boolean")
#: A long text the schema's check quotes is cut here on the page.
_DETAIL_MAX_CHARS = 300


def _scalar_kind(prop: Any) -> str | None:
    """``"enum"`` or one of ``_SCALARS`` for a property schema a single field offers, else ``None``."""
    if not isinstance(prop, dict) or any(key in prop for key in _COMPOSITE):
        return None
    if "enum" in prop:
        values = prop["enum"]
        if (
            isinstance(values, list)
            and values
            and all(isinstance(v, (str, int, float)) for v in values)  # bool is an int
            and len({json.dumps(v) for v in values}) == len(values)
        ):
            return "enum"
        return None
    kind = prop.get("type")
    return kind if kind in _SCALARS else None


def argument_kind(prop: Any) -> tuple[str, str]:
    """What field offers the property schema ``prop``: ``(kind, item kind)``. ``kind`` is a scalar
    kind (``_scalar_kind``), ``"array"`` (its items' scalar kind second) or ``"json"`` (anything
    else — a nested object, ``anyOf``, a type list — typed as a JSON value)."""
    kind = _scalar_kind(prop)
    if kind is not None:
        return kind, ""
    if (
        isinstance(prop, dict)
        and prop.get("type") == "array"
        and not any(key in prop for key in (*_COMPOSITE, "prefixItems"))
    ):
        item = _scalar_kind(prop.get("items"))
        if item is not None:
            return "array", item
    return "json", ""


def call_form_problem(schema: Any) -> str | None:
    """Why the test call offers no form for ``schema`` (the tool's inputSchema) — the sentence the
    page shows above the JSON box — or ``None`` when it does: an object schema whose
    ``properties`` is an object, every ``required`` name among them, no keyword tying the
    arguments together (``anyOf`` … ``dependentRequired``)."""
    if not isinstance(schema, dict) or schema.get("type") != "object":
        return gettext("its inputSchema is not an object schema")
    properties = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(properties, dict) or not isinstance(required, list):
        return gettext("its inputSchema's properties or required list is not what JSON Schema allows")
    combined = [key for key in _TOP_LEVEL_COMPOSITE if key in schema]
    if combined:
        return gettext("its inputSchema ties the arguments together (%(keywords)s)") % {"keywords": ", ".join(combined)}
    missing = [str(name) for name in required if name not in properties]
    if missing:
        return gettext("its inputSchema requires arguments it does not describe: %(names)s") % {
            "names": ", ".join(missing)
        }
    return None


class JsonNumberField(forms.FloatField):
    """A JSON number: an integer as typed stays one (``3``, not ``3.0``)."""

    def to_python(self, value: Any) -> Any:
        number = super().to_python(value)
        text = str(value).strip()
        if number is not None and text.lstrip("-").isdigit():
            return int(text)
        return number


class JsonValueField(forms.JSONField):
    """Any JSON value; left empty, nothing (Django's field shows ``null`` for no value)."""

    def prepare_value(self, value: Any) -> Any:
        return "" if value is None else super().prepare_value(value)


class LinesField(forms.CharField):
    """An array of scalars, one value a line (blank lines skipped, spaces around a value dropped),
    each cleaned by ``item`` (the field an item alone would have)."""

    def __init__(self, *, item: forms.Field, **kwargs: Any) -> None:
        self.item = item
        super().__init__(strip=False, widget=forms.Textarea(attrs={"rows": 3, "class": "mono"}), **kwargs)

    def clean(self, value: Any) -> list[Any]:
        text = super().clean(value)
        values: list[Any] = []
        errors: list[forms.ValidationError] = []
        number = 0
        for line in (text or "").splitlines():
            if not line.strip():
                continue
            number += 1
            try:
                values.append(self.item.clean(line.strip()))
            except forms.ValidationError as exc:
                errors.append(
                    forms.ValidationError(
                        gettext("value %(n)s: %(error)s") % {"n": number, "error": " ".join(exc.messages)}
                    )
                )
        if errors:
            raise forms.ValidationError(errors)
        return values


def _number(value: Any) -> float | int | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _length(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _choice_label(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _boolean_choices(required: bool) -> list[tuple[str, str]]:
    blank = gettext("(choose)") if required else gettext("(not sent)")
    return [("", blank), ("true", gettext("true (yes)")), ("false", gettext("false (no)"))]


def _scalar_field(kind: str, prop: dict[str, Any], required: bool) -> forms.Field:
    if kind == "enum":
        blank = gettext("(choose)") if required else gettext("(not sent)")
        return forms.TypedChoiceField(
            required=required,
            choices=[("", blank)] + [(json.dumps(v, ensure_ascii=False), _choice_label(v)) for v in prop["enum"]],
            coerce=json.loads,
            empty_value=None,
        )
    if kind == "boolean":
        return forms.TypedChoiceField(
            required=required, choices=_boolean_choices(required), coerce=lambda v: v == "true", empty_value=None
        )
    if kind == "integer":
        return forms.IntegerField(
            required=required, min_value=_number(prop.get("minimum")), max_value=_number(prop.get("maximum"))
        )
    if kind == "number":
        return JsonNumberField(
            required=required, min_value=_number(prop.get("minimum")), max_value=_number(prop.get("maximum"))
        )
    return forms.CharField(
        required=required,
        strip=False,
        max_length=_length(prop.get("maxLength")),
        min_length=_length(prop.get("minLength")),
        widget=forms.TextInput(attrs={"autocomplete": "off"}),
    )


def _initial(kind: str, item: str, prop: dict[str, Any], value: Any) -> Any:
    """The field's initial value for the argument ``value`` (the schema's default, or what the
    JSON box held), or ``None`` when that value is not one the field offers."""
    if kind == "json":
        return value
    if kind == "array":
        if not isinstance(value, list):
            return None
        shown = [_initial(item, "", prop.get("items") or {}, v) for v in value]
        if any(v is None for v in shown):
            return None
        return shown if item == "enum" else "\n".join(str(v) for v in shown)
    if kind == "enum":
        return json.dumps(value, ensure_ascii=False) if value in prop["enum"] else None
    if kind == "boolean":
        return {True: "true", False: "false"}.get(value) if isinstance(value, bool) else None
    if kind in ("integer", "number"):
        return _number(value)
    return value if isinstance(value, str) else None


#: A short name of each kind, shown beside the argument's name (JSON Schema's own words).
_TYPE_LABELS = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean", "enum": "enum"}


class ToolArgumentsForm(forms.Form):
    """A test call's arguments as a form built from the tool's inputSchema (docs/mcp.md "Test
    call"), as MCP Inspector offers: a text field for a string, a number field for an integer or
    a number, a list for an ``enum``, true / false / not sent for a boolean, one value a line for
    an array of those (ticks for an array of an ``enum``), and a JSON value box for any other
    shape (a nested object, ``anyOf``…). Required as the schema's ``required`` says; an optional
    field left empty is not sent. Offer it only when ``call_form_problem(schema)`` is ``None``.

    Valid, ``arguments`` is the JSON object the call sends, checked against the schema with
    jsonschema (its draft, ``skill_rule.tooldefs.dialect_validator``): a refusal lands on the
    field of the argument it is about."""

    def __init__(self, data: Any = None, *, schema: dict[str, Any], values: dict[str, Any] | None = None) -> None:
        """``schema``: the tool's inputSchema; ``values``: arguments to show (the JSON box's), else
        the schema's defaults are shown."""
        super().__init__(data, auto_id="call-%s")
        self.schema = schema
        required = set(schema.get("required", []))
        self.rows: list[dict[str, Any]] = []
        self._key_of: dict[str, str] = {}
        for index, (name, prop) in enumerate(schema.get("properties", {}).items()):
            key = f"arg{index}"
            prop = prop if isinstance(prop, dict) else {}
            kind, item = argument_kind(prop)
            needed = name in required
            if kind == "json":
                field: forms.Field = JsonValueField(
                    required=needed, widget=forms.Textarea(attrs={"rows": 3, "class": "mono"})
                )
                type_label = "JSON"
            elif kind == "array" and item == "enum":
                field = forms.TypedMultipleChoiceField(
                    required=needed,
                    choices=[(json.dumps(v, ensure_ascii=False), _choice_label(v)) for v in prop["items"]["enum"]],
                    coerce=json.loads,
                    widget=forms.CheckboxSelectMultiple,
                )
                type_label = "enum[]"
            elif kind == "array":
                field = LinesField(item=_scalar_field(item, prop["items"], True), required=needed)
                type_label = f"{_TYPE_LABELS[item]}[]"
            else:
                field = _scalar_field(kind, prop, needed)
                type_label = _TYPE_LABELS[kind]
            field.label = name
            hint = (
                gettext("a JSON value (the form has no field for this schema)")
                if kind == "json"
                else gettext("one value a line")
                if kind == "array" and item != "enum"
                else ""
            )
            field.help_text = " · ".join(
                t for t in (str(prop.get("description") or prop.get("title") or ""), hint) if t
            )
            given = prop.get("default") if values is None else values.get(name)  # what the JSON held, else the default
            if given is not None:
                field.initial = _initial(kind, item, prop, given)
            self.fields[key] = field
            self._key_of[name] = key
            self.rows.append(
                {
                    "name": name,
                    "key": key,
                    "type": type_label,
                    "required": needed,
                    "group": kind == "array" and item == "enum",
                    "json": kind == "json",
                }
            )

    def __iter__(self):  # the template walks ``rows`` (name, type, required) with the bound field
        for row in self.rows:
            yield {**row, "field": self[row["key"]]}

    def initial_arguments(self) -> dict[str, Any]:
        """The arguments the unbound form stands for (the defaults it shows), as the call would send them."""
        out: dict[str, Any] = {}
        for row in self.rows:
            field = self.fields[row["key"]]
            if field.initial in (None, "", []):
                continue
            try:
                value = field.clean(field.initial if not row["json"] else json.dumps(field.initial))
            except forms.ValidationError:
                continue
            out[row["name"]] = value
        return out

    def _collect(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for row in self.rows:
            value = self.cleaned_data.get(row["key"])
            if value is None or value == "" or (value == [] and not row["required"]):
                continue  # an optional argument left empty is not sent
            out[row["name"]] = value
        return out

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        if self.errors:
            return cleaned
        self.arguments = self._collect()
        validator_cls = dialect_validator(self.schema)
        if validator_cls is None:
            self.add_error(None, gettext("Its inputSchema names a JSON Schema dialect the console does not know."))
            return cleaned
        try:
            errors = list(validator_cls(self.schema).iter_errors(self.arguments))
        except Exception as exc:  # noqa: BLE001 — a stored schema the validator chokes on: said, not a 500
            self.add_error(
                None,
                gettext("Its inputSchema cannot be checked: %(cause)s") % {"cause": exc.__class__.__name__},
            )
            return cleaned
        for error in sorted(errors, key=lambda e: [str(p) for p in e.path]):
            path = list(error.path)
            key = self._key_of.get(path[0]) if path and isinstance(path[0], str) else None
            if key is not None and key in self.errors:
                continue  # one message a field
            self.add_error(key, _schema_message(error, path[1:]))
        return cleaned


def _schema_message(error: Any, inner: list[Any]) -> str:
    """jsonschema's refusal of one argument in the page's language: the keywords a form meets
    most in words of their own, the rest as the library says it."""
    keyword, expected = error.validator, error.validator_value
    if keyword == "pattern":
        text = gettext("Does not match the pattern %(pattern)s of the inputSchema.") % {"pattern": expected}
    elif keyword == "minItems":
        text = gettext("Give at least %(n)s values.") % {"n": expected}
    elif keyword == "maxItems":
        text = gettext("Give at most %(n)s values.") % {"n": expected}
    elif keyword == "uniqueItems":
        text = gettext("Give each value once.")
    else:
        detail = str(error.message)
        if len(detail) > _DETAIL_MAX_CHARS:
            detail = detail[:_DETAIL_MAX_CHARS] + "…"
        text = gettext("The inputSchema refuses it (%(keyword)s): %(detail)s") % {"keyword": keyword, "detail": detail}
    if inner and isinstance(inner[0], int):
        text = gettext("value %(n)s: %(error)s") % {"n": inner[0] + 1, "error": text}
    return text
