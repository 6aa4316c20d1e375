"""Data migration: the three builtin tools of DESIGN §2 exist from the start."""

from django.db import migrations

BUILTINS = (
    (
        "search_knowledge",
        "检索知识库，返回与问题最相关的条目。",
        {
            "type": "object",
            "properties": {"query": {"type": "string", "minLength": 1}},
            "required": ["query"],
            "additionalProperties": False,
        },
    ),
    (
        "load_skill",
        "加载一份技能手册；手册在上下文中时，它所门控的工具才会提供给模型。",
        {
            "type": "object",
            "properties": {"skill_code": {"type": "string"}},
            "required": ["skill_code"],
            "additionalProperties": False,
        },
    ),
    (
        "flush_memory",
        "把当前对话要点写入长期记忆并清理上下文。",
        {"type": "object", "properties": {}, "additionalProperties": False},
    ),
)


def create_builtins(apps, schema_editor):
    BuiltinTool = apps.get_model("skills_app", "BuiltinTool")
    for order, (name, description, params) in enumerate(BUILTINS, start=1):
        BuiltinTool.objects.get_or_create(
            name=name, defaults={"description": description, "parameters": params, "sort_order": order}
        )


class Migration(migrations.Migration):
    dependencies = [("skills_app", "0001_initial")]
    operations = [migrations.RunPython(create_builtins, migrations.RunPython.noop)]
