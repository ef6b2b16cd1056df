"""``ice-lab lint --format sarif``: the SARIF 2.1.0 log a code host's CI reads.

The structure is checked by hand against what SARIF 2.1.0 requires and what GitHub's
upload reads (version, runs[].tool.driver with name and rules, results with ruleId,
message.text and a physical location with a 1-based region); no network, no schema
download.
"""

from __future__ import annotations

import json
from pathlib import Path

from ice_lab.lint import RULES, lint_file
from ice_lab.lint.cli import main
from ice_lab.lint.sarif import to_sarif

CASES = Path(__file__).resolve().parent / "lint_cases"


def check_structure(log: dict) -> None:
    assert log["version"] == "2.1.0"
    assert log["$schema"].endswith("sarif-2.1.0.json")
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] and driver["version"]
    rules = driver["rules"]
    assert [r["id"] for r in rules] == list(RULES)
    for rule in rules:
        assert rule["shortDescription"]["text"]
        assert rule["properties"]["chapter"].startswith("book/")
        assert rule["properties"]["chapter"].endswith(".ipynb")
        section = f"{rule['properties']['chapter']}#{rule['properties']['anchor']}"
        assert section == RULES[rule["id"]].chapter
        assert rule["help"]["text"] == f"Taught in {section}."
        assert rule["defaultConfiguration"]["level"] in {"warning", "error"}
    for result in run["results"]:
        assert result["ruleId"] in RULES
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in {"warning", "error"}
        assert result["message"]["text"]
        [location] = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"]
        assert "\\" not in physical["artifactLocation"]["uri"]
        assert physical["region"]["startLine"] >= 1
        assert physical["region"]["startColumn"] >= 1


def test_sarif_log_has_the_structure_code_hosts_read():
    findings = lint_file(CASES / "ice114_positive.py") + lint_file(CASES / "notebook_case.ipynb")
    log = to_sarif(findings)
    check_structure(log)
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["ICE114", "ICE114", "ICE102", "ICE100"]
    assert results[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 7
    assert results[2]["properties"] == {"cell": 3}
    assert results[2]["message"]["text"].startswith("cell 3: ")
    assert results[3]["level"] == "error"
    json.dumps(log)  # serialisable as it is


def test_every_rule_in_the_log_names_its_chapter_file():
    for rule in to_sarif([])["runs"][0]["tool"]["driver"]["rules"]:
        assert (CASES.parents[2] / rule["properties"]["chapter"]).exists(), rule["id"]


def test_command_line_writes_sarif(tmp_path, capsys):
    out = tmp_path / "lint.sarif"
    status = main([str(CASES / "ice115_positive.py"), "--format", "sarif", "--output", str(out)])
    assert status == 1 and capsys.readouterr().out == ""
    log = json.loads(out.read_text())
    check_structure(log)
    assert [r["ruleId"] for r in log["runs"][0]["results"]] == ["ICE115"]
    assert main([str(CASES / "ice115_idiom.py"), "--format", "sarif"]) == 0
    assert json.loads(capsys.readouterr().out)["runs"][0]["results"] == []
