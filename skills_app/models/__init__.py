"""Records of docs/design.md, one module a feature (catalog, mcp, simulation, releases, keys, reports),
re-exported here so ``from skills_app.models import Skill`` keeps working and Django finds them."""

from skills_app.models.catalog import (
    AccessProfile,
    BuiltinTool,
    ConsoleSettings,
    IntentNode,
    Restriction,
    Skill,
    SkillQuerySet,
    Stage,
)
from skills_app.models.keys import RuntimeKey
from skills_app.models.mcp import (
    MCP_SERVER_NAME_MAX_LENGTH,
    MCP_SERVER_NAME_PATTERN,
    MCP_SYNC_TIMEOUT_DEFAULT,
    SECRET_MASK,
    McpServer,
    McpSyncRecord,
    McpTool,
)
from skills_app.models.releases import (
    LABEL_NAME_MAX_LENGTH,
    PUBLISH_PERMISSION,
    LabelMove,
    Release,
    ReleaseLabel,
)
from skills_app.models.reports import (
    ReportConversation,
    ReportRollup,
    ReportSample,
    RuntimeInstance,
    RuntimeReport,
)
from skills_app.models.simulation import Scenario

__all__ = [
    "AccessProfile",
    "BuiltinTool",
    "ConsoleSettings",
    "IntentNode",
    "LABEL_NAME_MAX_LENGTH",
    "LabelMove",
    "MCP_SERVER_NAME_MAX_LENGTH",
    "MCP_SERVER_NAME_PATTERN",
    "MCP_SYNC_TIMEOUT_DEFAULT",
    "McpServer",
    "McpSyncRecord",
    "McpTool",
    "PUBLISH_PERMISSION",
    "Release",
    "ReleaseLabel",
    "ReportConversation",
    "ReportRollup",
    "Restriction",
    "ReportSample",
    "RuntimeInstance",
    "RuntimeKey",
    "RuntimeReport",
    "SECRET_MASK",
    "Scenario",
    "Skill",
    "SkillQuerySet",
    "Stage",
]
