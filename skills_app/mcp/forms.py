"""The MCP server form (docs/mcp.md): URL or command, headers and environment as ``NAME=value``
lines, timeout. It only validates; ``mcp.services.mcp_server_save`` writes."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

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
