"""What is said about a rule, generated from the rule class alone, the same everywhere:
`--list-rules` (table and JSON), `--explain`, docs/rules/JAXNNN.md, the README's rule table and
the machine formats' rule metadata."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jaxfix.codemods.base import Rule


def rule_record(rule: type[Rule]) -> dict[str, Any]:
    return {
        "code": rule.code,
        "name": rule.name,
        "summary": rule.summary,
        "fix_safety": rule.fix_safety(),
        "fixes": [
            {"safety": safety.value, "what": what}
            for safety, what in rule.fixes.items()
        ],
    }


def _settings_section(rule: type[Rule]) -> str:
    """`## Settings`: the rule's own, as `[tool.jaxfix.rules.<code>]` takes them."""
    if not rule.settings:
        return ""
    lines = [f"## Settings\nIn `[tool.jaxfix.rules.{rule.code}]`:\n"]
    for s in rule.settings:
        default = "none" if s.default in (None, ()) else f"`{s.default!r}`"
        flag = f"; flag `{s.flag}`" if s.flag else ""
        lines.append(f"- `{s.key}` ({s.expects}; default: {default}{flag}): {s.help}.")
    return "\n".join(lines) + "\n\n"


def explain_markdown(rule: type[Rule]) -> str:
    """The rule's page: its docs, with the generated fix-safety line heading "Fix safety"."""
    doc = re.sub(
        r"^## Fix safety\n",
        f"{_settings_section(rule)}"
        f"## Fix safety\n**{rule.fix_safety()}**: {rule.fix_safety_text()}.\n\n",
        rule.doc(),
        count=1,
        flags=re.MULTILINE,
    )
    return f"# {rule.code}: {rule.name}\n\n{rule.summary}.\n\n{doc}\n"


def rules_table(rules: dict[str, type[Rule]]) -> str:
    """The README's table of rules, linking each rule's page."""
    lines = [
        "| code | what it finds | fix safety | what the fixes do |",
        "|---|---|---|---|",
    ]
    for code, rule in sorted(rules.items()):
        lines.append(
            f"| [{code}](docs/rules/{code}.md) | {rule.summary} | {rule.fix_safety()} | {rule.fix_safety_text()} |"
        )
    return "\n".join(lines) + "\n"


def errors_table(rules: dict[str, type[Rule]]) -> str:
    """The README's table of the JAX errors the rules prevent: each rule that raises on its
    default selection (`raises_since`) and says where (`raised_in`), with the first sentence of
    each of its messages (`raises`, holes as `...`), one row a rule (the front page stays short
    as rules learn messages)."""
    lines = ["| JAX error it prevents | raised in |", "|---|---|"]
    for code, rule in sorted(rules.items()):
        if rule.raises_since is None or not rule.raised_in or not rule.raises:
            continue
        where = ", ".join(f"`{path}`" for path in rule.raised_in)
        messages = "<br>".join(_first_sentence(template) for template in rule.raises)
        lines.append(f"| {code} {messages} | {where} |")
    return "\n".join(lines) + "\n"


def _first_sentence(template: str) -> str:
    """A message's first sentence as inline code, its holes as `...`."""
    first = template.split(". ", 1)[0].removesuffix(".")
    sentence = re.sub(r"\{[^{}]*\}", "...", first)
    return f"`` {sentence} ``" if "`" in sentence else f"`{sentence}`"
